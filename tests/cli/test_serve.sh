#!/usr/bin/env bash
# `gpuplan serve`: exit codes, the JSON keys of the contract (shared/design/interface.md),
# the done-when command of issue 5, determinism and the trace reader.
. "$(dirname "$0")/lib.sh"

run serve --help; expect_rc 0 "serve --help"; expect_out "--ttft-p99" "help lists targets"
run serve --model llama-3.1-8b --gpu H100-SXM-80GB; expect_rc 0 "no load: the default one"; expect_out "no load given, so 256 closed-loop users" "says the default load"
# the likely range comes from the architecture's own published runs where data/engines.json has
# them (docs/serving.md "Ranges"), else from the dense / MoE pool's; JSON says whose
expect_out "published llama runs held out of the fit" "a Llama's range from the Llama runs"
run serve --model gpt-oss-20b --gpu H100-SXM-80GB --users 8 --prompt-tokens 1000 --output-tokens 200 --json
expect_rc 0 "gpt-oss serve"
expect_json '.perf.error_range.basis == "gpt_oss" and .perf.error_range.cases >= 10' true "gpt-oss's own range"
expect_json '.perf.throughput_tokens_per_s_low <= .perf.throughput_tokens_per_s_high' true "an ordered range"
run serve --model qwen2.5-7b --gpu H100-SXM-80GB --users 8 --prompt-tokens 1000 --output-tokens 200 --json
expect_rc 0 "qwen2 serve"; expect_json '.perf.error_range.basis == "dense" and .perf.error_range.cases == 0' true "the dense pool"
run serve --model llama-3.1-8b --users 10 --rate 5; expect_rc 2 "two loads"
run serve --model llama-3.1-8b --users abc; expect_rc 2 "bad number"; expect_err "--users" "names the flag"
run serve --model llama-3.1-8b --users 10 --redundancy n+x; expect_rc 2 "bad redundancy"
run serve --model no-such-model --users 10; expect_rc 1 "unknown model"
run serve --model llama-3.1-8b --trace "$TMP/none.csv"; expect_rc 1 "missing trace"

# the done-when command: a setup, latencies, throughput, reasons (its speed is measured in
# bench/, not asserted here: sanitizer builds run it many times slower)
run serve --model llama-3.1-70b --users 300 --prompt-tokens 2000 --output-tokens 400 --ttft-p99 1 --tpot-p99 0.05 --redundancy n+1 --json
expect_rc 0 "done-when command"
for k in .layout.tp .layout.pp .layout.ep .layout.replicas .layout.gpus_total .perf.ttft_p50_s .perf.ttft_p99_s \
         .perf.tpot_p50_s .perf.tpot_p99_s .perf.throughput_tokens_per_s .perf.requests_per_s \
         .kv_cache.max_concurrency .slo.met; do
  expect_json "$k != null" true "key $k present"
done
expect_json .found true "a setup is found"
expect_json .slo.met true "targets met"
expect_json '.perf.ttft_p99_s <= 1' true "p99 TTFT within target"
expect_json '.perf.tpot_p99_s <= 0.05' true "p99 TPOT within target"
expect_json '.layout.gpus_total == .layout.tp * .layout.replicas' true "gpus_total = tp x replicas"
# the share of the time the GPU waits on the engine's host: a share, and some (vLLM's 4.5 ms a step)
expect_json '.perf.host_wait_share > 0 and .perf.host_wait_share < 1' true "host wait is a share"
expect_json '.layout.replicas >= 2' true "n+1 means at least 2 replicas"
expect_json '[.reasons[].code] | index("redundancy") != null' true "redundancy reason"
expect_json '[.reasons[].code] | index("concurrency") != null' true "concurrency reason"
run serve --model llama-3.1-70b --users 300 --prompt-tokens 2000 --output-tokens 400 --ttft-p99 1 --tpot-p99 0.05 --redundancy n+1
expect_rc 0 "done-when, text"; expect_out "Cheapest setup" "names the setup"; expect_out "Why this many GPUs" "gives reasons"

# a 70B model in bf16 (141 GB of weights) does not fit one H100: the reason says so
run serve --model llama-3.1-70b --gpu H100-SXM-80GB --users 20 --prompt-tokens 1000 --output-tokens 100 --ttft-p99 2 --tpot-p99 0.1 --json
expect_rc 0 "70B on H100"; expect_json '[.reasons[].code] | index("model_does_not_fit") != null' true "does not fit one H100"
expect_json '.layout.tp >= 2' true "TP >= 2 on H100"
# the same in Brazilian Portuguese (--lang, as fit's): codes and keys stay, the messages are
# the message table's with decimal commas; 70,553,706,496 parameters x 2 bytes = 141.1 GB
run serve --model llama-3.1-70b --gpu H100-SXM-80GB --users 20 --prompt-tokens 1000 --output-tokens 100 --ttft-p99 2 --tpot-p99 0.1 --lang pt-BR --json
expect_rc 0 "pt-BR reasons"; expect_json '[.reasons[].code] | index("model_does_not_fit") != null' true "codes stay"
expect_json '.reasons[] | select(.code == "model_does_not_fit") | .message | startswith("o modelo não cabe em uma H100-SXM-80GB: H100-SXM-80GB TP1: pesos de 141,1 GB")' true "the reason in Portuguese"
run serve --model llama-3.1-70b --gpu H100-SXM-80GB --users 20 --prompt-tokens 1000 --output-tokens 100 --ttft-p99 2 --tpot-p99 0.1 --json
expect_json '.reasons[] | select(.code == "model_does_not_fit") | .message | startswith("the model does not fit one H100-SXM-80GB: H100-SXM-80GB TP1: weights 141.1 GB")' true "English by default"

# --rate inf: a saturating load on a fixed setup; deterministic for a seed
run serve --model llama-3.1-8b --gpu h100 --rate inf --requests 500 --prompt-tokens 500 --output-tokens 200 --seed 3 --json
expect_rc 0 "rate inf"; expect_json .mode evaluate "evaluates"; expect_json .layout.replicas 1 "one replica"
a=$(jq -c .perf "$TMP/out")
run serve --model llama-3.1-8b --gpu h100 --rate inf --requests 500 --prompt-tokens 500 --output-tokens 200 --seed 3 --json
checks=$((checks+1)); [ "$a" = "$(jq -c .perf "$TMP/out")" ] || fail "same seed, same answer"

# a trace, CSV with header, and JSONL
printf 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,200,20\n1.0,50,5\n' > "$TMP/t.csv"
run serve --model llama-3.1-8b --gpu h100 --trace "$TMP/t.csv" --json; expect_rc 0 "CSV trace"
expect_json .requests_simulated 3 "three requests"
printf '{"arrival_s": 0, "prompt_tokens": 100, "output_tokens": 10}\n{"arrival_s": 0.2, "prompt_tokens": 80}\n' > "$TMP/t.jsonl"
run serve --model llama-3.1-8b --gpu h100 --trace "$TMP/t.jsonl"; expect_rc 1 "bad JSONL trace"; expect_err "t.jsonl:2" "names file:line"
finish
