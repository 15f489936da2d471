#!/usr/bin/env bash
# The CLI contract (shared/design/interface.md): commands, exit codes, --json keys, errors.
# Expected numbers are published counts or worked by hand (see tests/unit/test_model.c).
. "$(dirname "$0")/lib.sh"

run; expect_rc 0 "no arguments runs the example"; expect_out "Recommended:" "the example is the plan"
expect_out "Llama-3.1-70B" "for Llama-3.1-70B"
run --version; expect_rc 0 "--version"; expect_out "gpuplan " "--version"
run --help; expect_rc 0 "--help"; expect_out "model" "--help lists commands"
run nosuchcommand; expect_rc 2 "unknown command"; expect_err "unknown command" "unknown command message"
run model show llama-3.1-70b --json; expect_rc 0 "model show --json"
expect_json .params_total 70553706496 "Llama-3.1-70B published count"
expect_json .layers 80 "layers"; expect_json .kv_heads 8 "kv_heads"; expect_json .head_dim 128 "head_dim"
expect_json .vocab 128256 "vocab"; expect_json .experts 0 "experts"
expect_json .kv_bytes_per_token 327680 "KV/token = 2*80*8*128*2"
expect_json .weight_bytes 141107412992 "bf16 bytes = 2 x 70,553,706,496"
run model show --model META-LLAMA/Llama-3.1-70B --json; expect_json .params_total 70553706496 "HF repo name, any case"
run model show mixtral-8x7b --json
expect_json .params_total 46702792704 "Mixtral total"; expect_json .params_active 12879925248 "Mixtral active"

mkdir -p "$TMP/l70"; cp "$DATA/models/llama-3.1-70b.json" "$TMP/l70/config.json"
run model show "$TMP/l70/config.json" --json; expect_rc 0 "config.json path"; expect_json .params_total 70553706496 "from config.json"
run model show --model "$TMP/l70" --json; expect_rc 0 "folder without shards"; expect_json .params_total 70553706496 "from folder"

# explicit architecture (hand count 7,888 in tests/unit/test_model.c)
run model show --layers 2 --hidden 16 --heads 4 --kv-heads 2 --ffn 32 --vocab 100 --json
expect_rc 0 "explicit flags"; expect_json .params_total 7888 "tiny model by hand"
# overriding a named model: Llama-3.1-70B with 40 layers = 70,553,706,496 - 40 * 855,654,400
run model show llama-3.1-70b --layers 40 --json; expect_json .params_total 36327530496 "override layers"

# errors: bad input exits 1 with a message naming what and where; bad usage exits 2
run model show no-such-model; expect_rc 1 "unknown model"; expect_err "unknown model 'no-such-model'" "message"
printf '{"model_type": "llama",\n "hidden_size": }\n' > "$TMP/bad.json"
run model show "$TMP/bad.json"; expect_rc 1 "malformed config"; expect_err "bad.json:2:" "file:line: in message"
printf '{"num_hidden_layers": "x", "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 4}' > "$TMP/type.json"
run model show "$TMP/type.json"; expect_rc 1 "wrong type"; expect_err "num_hidden_layers" "names the field"
mkdir -p "$TMP/empty"; run model show "$TMP/empty"; expect_rc 1 "folder with no config"; expect_err "config.json" "says what is missing"
run model show --layers abc; expect_rc 2 "non-numeric flag"; expect_err "--layers" "names the flag"
run model show --layers 99999999999999999; expect_rc 2 "absurd number"
run model show; expect_rc 2 "no model"
run model show llama-3.1-70b --bogus; expect_rc 2 "unknown option"

run model list --json; expect_rc 0 "model list"; expect_json '.models | length >= 30' true "30+ catalog models"
run gpus --json; expect_rc 0 "gpus"; expect_json '[.gpus[].id] | index("H100-SXM-80GB") != null' true "H100 listed"
expect_json '.gpus[] | select(.id=="H100-SXM-80GB") | .memory_bytes' 85520809984 "H100 81,559 MiB"
run gpus h200; expect_rc 0 "gpus ID"; expect_out "H200-SXM-141GB" "alias h200"
run gpus nosuchgpu; expect_rc 1 "unknown gpu"; expect_err "unknown GPU" "message"

# --data-dir overrides and extends the built-in catalog
cat > "$TMP/models.json" <<'J'
{"schema": 1, "models": [{"id": "my-tiny", "hf_repo": "me/tiny", "config": {"model_type": "llama",
 "vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 2, "intermediate_size": 32, "tie_word_embeddings": false}}]}
J
run model show my-tiny --data-dir "$TMP" --json; expect_rc 0 "user catalog"; expect_json .params_total 7888 "user model"
echo '{"models": [' > "$TMP/models.json"
run model show my-tiny --data-dir "$TMP"; expect_rc 1 "broken user catalog"; expect_err "models.json" "names the file"
finish
