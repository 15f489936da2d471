/*
 * messages.c: every sentence of the report's decision section, in English and Brazilian
 * Portuguese (one row each), and numbers and money written the way each reader writes them.
 */
#include "messages.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct msg_row {
    const char *en, *pt;
} msg_row;

static const msg_row table[MSG_COUNT] = {
    [MSG_BOARD_TITLE] = {"The decision", "A decisão"},
    /* {k|one|other}: the form for argument k's count (messages.h) */
    [MSG_RECOMMEND_OWNED] = {"Recommendation: {0} {1} {0|GPU|GPUs} in {2} you own {3}.",
                             "Recomendação: {0} {0|GPU|GPUs} {1} em {2} {4|próprio|próprios} {3}."},
    [MSG_RECOMMEND_BAREMETAL] =
        {"Recommendation: {0} {1} {0|GPU|GPUs} in {2} rented by the month (bare metal) {3}.",
         "Recomendação: {0} {0|GPU|GPUs} {1} em {2} {4|dedicado|dedicados}, em locação mensal (bare metal) {3}."},
    [MSG_RECOMMEND_CLOUD] = {"Recommendation: {0} {1} {0|GPU|GPUs} rented by the hour in the cloud: {2}.",
                             "Recomendação: {0} {0|GPU|GPUs} {1} em locação por hora na nuvem: {2}."},
    [MSG_RECOMMEND_TRAIN] = {"Recommendation: train on {0} {1} {0|GPU|GPUs}, {2}.",
                             "Recomendação: treinar em {0} {0|GPU|GPUs} {1}, {2}."},
    [MSG_SETUP_SERVE] = {"Weights in {0}; {1} {1|replica|replicas} of {2} {2|GPU|GPUs} each, {3} of them spare.",
                         "Pesos em {0}; {1} {1|réplica|réplicas} de {2} {2|GPU|GPUs} cada, {3} de reserva."},
    [MSG_CAPEX] = {"Investment (CapEx): {0}, paid up front.", "Investimento inicial (CapEx): {0}, pago no início."},
    [MSG_NO_CAPEX] = {"Investment (CapEx): none; nothing is bought.",
                      "Investimento inicial (CapEx): nenhum; nada é comprado."},
    [MSG_OPEX] = {"Monthly cost (OpEx): {0} ({1}).", "Custo mensal (OpEx): {0} ({1})."},
    [MSG_TCO] = {"Total cost of ownership over {0} months: {1}.", "Custo total de propriedade em {0} meses: {1}."},
    [MSG_PER_MTOK] = {"{0} per million output tokens.", "{0} por milhão de tokens gerados."},
    [MSG_PER_RUN] = {"One training run: {0}; it takes {1}.", "Um treinamento: {0}; leva {1}."},
    [MSG_WHY_TITLE] = {"Why it wins, against the best alternative of each kind",
                       "Por que vence, contra a melhor alternativa de cada tipo"},
    [MSG_ALT_CLOUD] = {"Rent in the cloud", "Locação em nuvem pública"},
    [MSG_ALT_BAREMETAL] = {"Rent dedicated servers (bare metal)", "Locação de servidores dedicados (bare metal)"},
    [MSG_ALT_OWNED] = {"Own the servers", "Servidores próprios"},
    [MSG_ALT_OTHER_GPU] = {"Another GPU", "Outra GPU"},
    [MSG_ALT_OTHER_PRECISION] = {"Other weights (quantized or not)", "Outra precisão dos pesos (quantizados ou não)"},
    [MSG_ALT_MORE] = {"{0}: {1}, {2}, costs {3}: {4} more.", "{0}: {1}, {2}, custa {3}: {4} a mais."},
    [MSG_ALT_LESS_EXCLUDED] = {"{0}: the cheapest, {1}, {2}, at {3}, is excluded by {4}: {5}",
                               "{0}: a mais barata, {1}, {2}, por {3}, é excluída pela regra {4}: {5}"},
    [MSG_ALT_EXCLUDED] = {"{0}: excluded by {4} ({1}, {2}, {3}).", "{0}: excluída pela regra {4} ({1}, {2}, {3})."},
    [MSG_ALT_NONE] = {"{0}: no option with a price.", "{0}: nenhuma opção com preço."},
    [MSG_BREAK_EVEN] = {" Owning pays back against it in month {0} of {1}.",
                        " A compra se paga frente a ela no mês {0} de {1}."},
    [MSG_BREAK_EVEN_NEVER] = {" Owning does not pay back against it within {1} months.",
                              " A compra não se paga frente a ela em {1} meses."},
    [MSG_BUY_TITLE] = {"What to buy or rent", "O que comprar ou alugar"},
    [MSG_BUY_OWNED] = {"{0} x {1} in {2} ({3} {3|GPU|GPUs} per server): {4} rack {4|unit|units}, {5} kW of IT load "
                       "({6} kW from the grid with the facility's PUE of {7}).",
                       "{0} x {1} em {2} ({3} {3|GPU|GPUs} por servidor): {4} {4|unidade|unidades} de rack (U), {5} kW "
                       "de carga de TI ({6} kW da rede com o PUE de {7} do datacenter)."},
    [MSG_BUY_RENTED] =
        {"{0} x {1} in {2} rented ({3} {3|GPU|GPUs} per server); {8|it draws|they draw} {5} kW, inside the rent.",
         "{0} x {1} em {2} {8|alugado|alugados} ({3} {3|GPU|GPUs} por servidor); {8|consome|consomem} {5} kW, já "
         "incluídos na locação."},
    [MSG_RISKS_TITLE] = {"Risks, with their size", "Riscos e seu tamanho"},
    [MSG_RISK_FX] = {"Exchange rate: if the real loses {0} against the dollar, the recommendation costs {1} more and "
                     "the runner-up {2} more (GPUs, rent and colocation are priced in dollars).",
                     "Câmbio: se o real perder {0} frente ao dólar, a recomendação custa {1} a mais e a segunda "
                     "colocada {2} a mais (GPUs, locação e colocation têm preço em dólar)."},
    [MSG_RISK_DUTY] = {"Import taxes: servers imported into Brazil pay {0} import duty (GECEX resolution 852/2026), "
                       "{1} more, not in the price above; IPI, PIS/COFINS and ICMS come on top.",
                       "Impostos de importação: servidores importados pagam {0} de Imposto de Importação (Resolução "
                       "GECEX 852/2026), {1} a mais, fora do preço acima; IPI, PIS/COFINS e ICMS vêm por cima."},
    [MSG_RISK_CONF] = {"Price confidence: {0} rest on low-confidence quotes; a price error of {1} would reverse the "
                       "order against the runner-up.",
                       "Confiança dos preços: {0} vêm de cotações de baixa confiança; um erro de {1} nos preços "
                       "inverteria a ordem frente à segunda colocada."},
    [MSG_RISK_LEAD] =
        {"Lead time: servers take about {0} months to arrive; renting the same setup meanwhile costs {1} more.",
         "Prazo de entrega: os servidores levam cerca de {0} meses para chegar; alugar a mesma configuração nesse "
         "meio-tempo custa {1} a mais."},
    [MSG_RISK_UTIL_OWNED] = {"Use below plan: at {0} of the planned load, owned servers cost the same, while the "
                             "runner-up, rented, would cost {1} less.",
                             "Uso abaixo do planejado: com {0} da carga planejada, os servidores próprios custam o "
                             "mesmo, enquanto a segunda colocada, alugada, custaria {1} a menos."},
    [MSG_RISK_UTIL_RENTED] =
        {"Use below plan: at {0} of the planned load, rented capacity can shrink by {1}.",
         "Uso abaixo do planejado: com {0} da carga planejada, a capacidade alugada pode encolher {1}."},
    [MSG_RISK_FLIPS] = {" Under this what-if the runner-up ({0}) becomes the cheaper choice.",
                        " Nesse cenário a segunda colocada ({0}) passa a ser a mais barata."},
    [MSG_POLICY_TITLE] = {"Data rules as company policy, and what each costs",
                          "Regras de dados como política da empresa, e quanto custa cada uma"},
    [MSG_POLICY_INTRO] =
        {"Profile {0}. Each rule is a policy choice you can change (--compliance, or your own rules with --data-dir); "
         "its price is what the cheapest option it alone excludes would save.",
         "Perfil {0}. Cada regra é uma escolha de política que pode ser alterada (--compliance, ou regras próprias com "
         "--data-dir); o preço dela é o que a opção mais barata excluída só por ela economizaria."},
    [MSG_POLICY_PRICE] = {"costs {0} (without it: {1}, {2})", "custa {0} (sem ela: {1}, {2})"},
    [MSG_POLICY_FREE] = {"costs nothing here (the cheapest option it alone excludes, {1}, costs more)",
                         "não custa nada aqui (a opção mais barata excluída só por ela, {1}, custa mais)"},
    [MSG_POLICY_NOTHING] = {"excludes nothing cheaper on its own", "sozinha não exclui nada mais barato"},
    [MSG_POLICY_SPARE] = {"costs {0}: the spare replica", "custa {0}: a réplica de reserva"},
    [MSG_POLICY_ALL] =
        {"Without any data rule the cheapest option would be {0}, {1}, at {2}: all the rules together cost {3}.",
         "Sem nenhuma regra de dados, a opção mais barata seria {0}, {1}, por {2}: todas as regras juntas custam {3}."},
    [MSG_REDUNDANCY] = {"Redundancy: {0} spare {0|replica|replicas}. {1}",
                        "Redundância: {0} {0|réplica|réplicas} de reserva. {1}"},
    [MSG_N_GPUS] = {"{0} {0|GPU|GPUs}", "{0} {0|GPU|GPUs}"},
    [MSG_SETUP_SHORT] = {"{0} x TP{1} ({2} {2|spare|spares})", "{0} x TP{1} ({2} {2|reserva|reservas})"},
    [MSG_RELIABILITY_SERVE] = {"{0} {0|replica|replicas} + {1} {1|spare|spares}; availability {2}",
                               "{0} {0|réplica|réplicas} + {1} {1|reserva|reservas}; disponibilidade {2}"},
    [MSG_PROFILE_LINE] = {"{0} (--compliance {1})", "{0} (--compliance {1})"},
    [MSG_APPENDIX] = {"Appendix: options the data rules exclude", "Apêndice: opções excluídas pelas regras de dados"},
    [MSG_COUNTRY_BR] = {"in Brazil", "no Brasil"},
    [MSG_COUNTRY_US] = {"in the United States", "nos Estados Unidos"},
    [MSG_WHERE_IN] = {"in {0}", "em {0}"},
    /* the verdict of `gpuplan fit` (decide/fit.c): one GPU or several, and why */
    [MSG_FIT_FITS] = {"One {0} holds it: {1} GB needed of {2} GB, {3} GB to spare.",
                      "Uma {0} comporta o modelo: {1} GB necessários de {2} GB, {3} GB livres."},
    [MSG_FIT_WEIGHTS] =
        {"The weights alone are {0} GB; one {1} has {2} GB, so the model must be split over several GPUs.",
         "Só os pesos têm {0} GB; uma {1} tem {2} GB, então o modelo precisa ser dividido entre várias GPUs."},
    [MSG_FIT_KV] = {"The weights fit ({0} GB of {1} GB), but the KV cache for {2} sequences of {3} tokens needs {4} GB "
                    "more than is left.",
                    "Os pesos cabem ({0} GB de {1} GB), mas o cache KV de {2} sequências de {3} tokens precisa de {4} "
                    "GB a mais do que sobra."},
    [MSG_FIT_PREFILL] = {"Weights and KV cache fit, but the prefill activations ({0} GB) do not.",
                         "Pesos e cache KV cabem, mas as ativações do prefill ({0} GB) não."},
    [MSG_FIT_TRAIN_STATE] =
        {"Weights, gradients and optimizer states need {0} GB ({1} bytes per parameter); one {2} has {3} GB.",
         "Pesos, gradientes e estados do otimizador precisam de {0} GB ({1} bytes por parâmetro); uma {2} tem {3} GB."},
    [MSG_FIT_TRAIN_ACT] =
        {"The model states fit ({0} GB), but the activations of a {1}-token micro-batch of {2} need {3} GB more.",
         "Os estados do modelo cabem ({0} GB), mas as ativações de um micro-lote de {2} sequências de {1} tokens "
         "precisam de {3} GB a mais."},
    [MSG_FIT_NO_LAYOUT] = {"No layout of up to {0} {1} fits this {2} job as asked: reduce the context, batch or "
                           "precision, or enable recomputation/offload.",
                           "Nenhuma divisão de até {0} {1} comporta este trabalho de {2} como pedido: reduza o "
                           "contexto, o lote ou a precisão, ou ative a recomputação ou o offload."},
    [MSG_FIT_JOB_SERVE] = {"serve", "inferência"},
    [MSG_FIT_JOB_TRAIN] = {"train", "treinamento"},
    [MSG_FIT_HOW_INFER] = {"tensor parallel {0} x pipeline {1}", "paralelismo de tensor {0} x pipeline {1}"},
    [MSG_FIT_HOW_TRAIN] = {"TP {0} x PP {1} x DP {2} with ZeRO-{3}", "TP {0} x PP {1} x DP {2} com ZeRO-{3}"},
    [MSG_FIT_HOLD_INFER] = {"{0} x {1} ({2}) hold it: {3} GB per GPU of {4} GB; room for {5} concurrent {6}-token "
                            "sequences ({7} tokens of KV cache), or one sequence of up to {8} tokens.",
                            "{0} x {1} ({2}) comportam o modelo: {3} GB por GPU de {4} GB; cabem {5} sequências "
                            "simultâneas de {6} tokens ({7} tokens de cache KV) ou uma sequência de até {8} tokens."},
    [MSG_FIT_HOLD_TRAIN] = {"{0} x {1} ({2}) hold it: {3} GB per GPU of {4} GB.",
                            "{0} x {1} ({2}) comportam o modelo: {3} GB por GPU de {4} GB."},
    [MSG_FIT_CONTEXT_MAX] =
        {"Warning: the context asked ({0} tokens) is longer than the model's maximum of {1} tokens; engines refuse "
         "longer sequences (vLLM: max_model_len above max_position_embeddings), so plan for {1}.",
         "Aviso: o contexto pedido ({0} tokens) é maior que o máximo do modelo, {1} tokens; os motores de inferência "
         "recusam sequências mais longas (vLLM: max_model_len acima de max_position_embeddings), então planeje para "
         "{1}."},
    [MSG_FIT_LOWER_ITEM] = {"{0} ({1} GB of {2} GB)", "{0} ({1} GB de {2} GB)"},
    [MSG_FIT_LOWER] = {"With 8-bit weights one {0} holds it: {1}. 8-bit weights change outputs little and every "
                       "gpuplan data profile allows them; check the quality on your task.",
                       "Com pesos de 8 bits, uma {0} comporta o modelo: {1}. Pesos de 8 bits mudam pouco as respostas "
                       "e todos os perfis de dados do gpuplan os aceitam; confira a qualidade na sua tarefa."},
    [MSG_FIT_UNITS] = {"Sizes are in GB of 10^9 bytes. The {0} is sold as {1} GB (in fact GiB, 2^30 bytes); the device "
                       "reports {2} GB ({3} GiB), the figure used here.",
                       "Tamanhos em GB de 10^9 bytes. A {0} é vendida como {1} GB (na verdade GiB, 2^30 bytes); o "
                       "dispositivo informa {2} GB ({3} GiB), o valor usado aqui."},
    [MSG_FIT_BAD_TP] = {"Tensor parallelism {0} cannot run: {0} does not divide the model's {1} attention heads (each "
                        "GPU must hold whole heads). Use TP {2}.",
                        "Paralelismo de tensor {0} não funciona: {0} não divide as {1} cabeças de atenção do modelo "
                        "(cada GPU precisa de cabeças inteiras). Use TP {2}."},
    [MSG_FIT_BAD_PP] = {"Pipeline parallelism {0} cannot run: the model has only {1} layers.",
                        "Paralelismo de pipeline {0} não funciona: o modelo tem só {1} camadas."},
    [MSG_FIT_TXT_ONE] = {"Verdict: ONE GPU is enough.", "Veredito: UMA GPU basta."},
    [MSG_FIT_TXT_SEVERAL] = {"Verdict: one GPU is NOT enough.", "Veredito: uma GPU NÃO basta."},
    [MSG_FIT_TXT_NONE] = {"Verdict: no layout fits.", "Veredito: nenhuma divisão comporta."},
    [MSG_FIT_TXT_ASKED] = {"Asked layout (TP {0}, PP {1}, DP {2}{3})", "Divisão pedida (TP {0}, PP {1}, DP {2}{3})"},
    [MSG_FIT_TXT_SMALLEST] = {"Smallest setup: {0} x {1} (TP {2}, PP {3}, DP {4}, ZeRO-{5})",
                              "Menor configuração: {0} x {1} (TP {2}, PP {3}, DP {4}, ZeRO-{5})"},
    [MSG_FIT_TXT_MEMORY] = {"{0}: {1} GB per GPU of {2} GB ({3})", "{0}: {1} GB por GPU de {2} GB ({3})"},
    [MSG_FIT_TXT_FITS] = {"fits", "cabe"},
    [MSG_FIT_TXT_NOT_FITS] = {"does NOT fit", "NÃO cabe"},
    [MSG_FIT_TXT_ON_SETUP] =
        {"On that setup: up to {0} concurrent {1}-token sequences, or one sequence of up to {2} tokens.",
         "Nessa configuração: até {0} sequências simultâneas de {1} tokens, ou uma sequência de até {2} tokens."},
    [MSG_FIT_TXT_HEAD_INFER] = {"{0} on {1}: inference, {2} x {3}-token {2|sequence|sequences}, weights {4}",
                                "{0} em {1}: inferência, {2} {2|sequência|sequências} de {3} tokens, pesos {4}"},
    [MSG_FIT_TXT_HEAD_TRAIN] = {"{0} on {1}: {2}, {3}-token sequences, micro-batch {4}, {5}, weights {6}",
                                "{0} em {1}: {2}, sequências de {3} tokens, micro-lote {4}, {5}, pesos {6}"},
    [MSG_FIT_TXT_WEIGHTS] = {"weights", "pesos"},
    [MSG_FIT_TXT_KV] = {"kv cache", "cache KV"},
    [MSG_FIT_TXT_ACT] = {"activations", "ativações"},
    [MSG_FIT_TXT_GRAD] = {"gradients", "gradientes"},
    [MSG_FIT_TXT_OPT] = {"optimizer", "otimizador"},
    [MSG_FIT_TXT_OVERHEAD] = {"overhead", "sobrecarga"},
    [MSG_FIT_TXT_CAPACITY] = {"capacity", "capacidade"},
    /* serve's reasons (serving/capacity.c); layouts and GPU ids stay as they are */
    [MSG_SERVE_SPANS] = {"a replica spans {0} nodes ({1}, {2} GPUs): no layout inside one {3} node holds the model "
                         "with room for a request{4}; the layers cross the network between nodes",
                         "uma réplica ocupa {0} nós ({1}, {2} GPUs): nenhuma divisão dentro de um nó de {3} comporta o "
                         "modelo com espaço para uma requisição{4}; as camadas cruzam a rede entre os nós"},
    [MSG_SERVE_ONE_NODE_BEATS] =
        {"one node per replica ({0}) beats spanning nodes ({1}: {2} GPUs, ${3}/h against {4}, ${5}/h): model "
         "parallelism wants NVLink, and over the network its collectives cost more",
         "um nó por réplica ({0}) vence ocupar vários nós ({1}: {2} GPUs, US$ {3}/h contra {4}, US$ {5}/h): o "
         "paralelismo de modelo pede NVLink, e pela rede suas operações coletivas custam mais"},
    [MSG_SERVE_ONE_NODE_HOLDS] =
        {"one node per replica: {0} holds the model inside one {1} node, so no layout spans nodes (model parallelism "
         "wants NVLink; over the network its collectives cost more and add nothing here)",
         "um nó por réplica: {0} comporta o modelo dentro de um nó de {1}, então nenhuma divisão ocupa vários nós (o "
         "paralelismo de modelo pede NVLink; pela rede suas operações coletivas custam mais e nada acrescentam aqui)"},
    [MSG_SERVE_SPAN_CHEAPER] = {"{0} over {1} nodes is cheaper than one node per replica ({2}: {3} GPUs, ${4}/h)",
                                "{0} em {1} nós custa menos que um nó por réplica ({2}: {3} GPUs, US$ {4}/h)"},
    [MSG_SERVE_EP_BEATS] =
        {"expert parallelism ({0}) beats tensor parallelism alone for the MoE layers ({1}: {2} GPUs, ${3}/h): whole "
         "experts per GPU read fewer weights per token and attention DP keeps one KV pool per rank",
         "o paralelismo de especialistas ({0}) vence o paralelismo de tensor sozinho nas camadas MoE ({1}: {2} GPUs, "
         "US$ {3}/h): especialistas inteiros por GPU leem menos pesos por token e o DP de atenção mantém um pool de KV "
         "por rank"},
    [MSG_SERVE_TP_BEATS] =
        {"tensor parallelism ({0}) beats expert parallelism here ({1}: {2} GPUs, ${3}/h): at this load the all-to-all "
         "per MoE layer and the expert imbalance cost more than they save",
         "o paralelismo de tensor ({0}) vence aqui o paralelismo de especialistas ({1}: {2} GPUs, US$ {3}/h): com esta "
         "carga, o all-to-all de cada camada MoE e o desequilíbrio entre especialistas custam mais do que economizam"},
    [MSG_SERVE_ONE_GPU] = {"one {0} meets the targets: p99 TTFT {1} s, p99 TPOT {2} ms",
                           "uma {0} atinge as metas: TTFT p99 de {1} s, TPOT p99 de {2} ms"},
    [MSG_SERVE_NOT_FIT] = {"the model does not fit one {0}: {1}", "o modelo não cabe em uma {0}: {1}"},
    [MSG_SERVE_LATENCY] = {"{0} is needed for latency: {1}", "{0} é necessário pela latência: {1}"},
    [MSG_SERVE_LATENCY_FEW] =
        {"{0} per replica for latency: {1} holds the model but meets p99 TPOT {2} ms only with few users per replica "
         "(one request alone: TPOT {3} ms), needing {4} GPUs (${5}/h) against {6} (${7}/h)",
         "{0} por réplica pela latência: {1} comporta o modelo, mas só atinge o TPOT p99 de {2} ms com poucos usuários "
         "por réplica (uma requisição sozinha: TPOT de {3} ms), e precisaria de {4} GPUs (US$ {5}/h) contra {6} (US$ "
         "{7}/h)"},
    [MSG_SERVE_CONCURRENCY] =
        {"the load needs {0} serving replicas: with {1}, each replica's p99 TTFT is {2} s and p99 TPOT {3} ms (targets "
         "{4} s, {5} ms; a replica holds {6} concurrent {7}-token sequences in KV)",
         "a carga precisa de {0} réplicas servindo: com {1}, o TTFT p99 de cada réplica é {2} s e o TPOT p99 {3} ms "
         "(metas {4} s, {5} ms; uma réplica comporta {6} sequências simultâneas de {7} tokens no KV)"},
    [MSG_SERVE_CONCURRENCY_N] = {"the load needs {0} serving replicas", "a carga precisa de {0} réplicas servindo"},
    [MSG_SERVE_REDUNDANCY] =
        {"n+{0}: {0} {0|replica|replicas} more, so that with {0} down the other {1} still meet the targets",
         "n+{0}: {0} {0|réplica|réplicas} a mais, para que com {0} fora do ar as outras {1} ainda atinjam as metas"},
    [MSG_SERVE_LARGER] =
        {"{0} at TP{1} ({2} per replica, {3} GPUs, ${4}/h) serves better than {5} at TP{6} ({7} per replica, {8} GPUs, "
         "${9}/h): fewer, larger GPUs hold the weights and more KV with less tensor-parallel traffic",
         "{0} com TP{1} ({2} por réplica, {3} GPUs, US$ {4}/h) serve melhor que {5} com TP{6} ({7} por réplica, {8} "
         "GPUs, US$ {9}/h): menos GPUs, maiores, comportam os pesos e mais KV com menos tráfego de paralelismo de "
         "tensor"},
    [MSG_SERVE_NO_SETUP] = {"no GPU type and layout up to {0} nodes per replica meets the targets{1}",
                            "nenhum tipo de GPU e divisão de até {0} nós por réplica atinge as metas{1}"},
    [MSG_SERVE_WHY_ERROR] = {"{0} {1}: {2}", "{0} {1}: {2}"},
    [MSG_SERVE_WHY_KV] = {"{0} {1}: the KV cache holds {2} tokens, less than one {3}-token request",
                          "{0} {1}: o cache KV comporta {2} tokens, menos que uma requisição de {3} tokens"},
    [MSG_SERVE_WHY_ALONE] =
        {"{0} {1}: one request alone already takes TTFT {2} s and TPOT {3} ms (targets {4} s, {5} ms)",
         "{0} {1}: uma requisição sozinha já leva TTFT de {2} s e TPOT de {3} ms (metas {4} s, {5} ms)"},
    [MSG_SERVE_WHY_REPLICAS] = {"{0} {1}: {2} replicas still miss the targets (p99 TTFT {3} s, TPOT {4} ms)",
                                "{0} {1}: {2} réplicas ainda não atingem as metas (TTFT p99 de {3} s, TPOT de {4} ms)"},
    [MSG_SERVE_WHY_PLAIN] = {"{0}", "{0}"}, /* a library message, in English */
    [MSG_SERVE_WHY_NO_KV] =
        {"{0} {1}: weights {2} GB + activations {3} GB per GPU leave no room for the KV cache in {4} GB",
         "{0} {1}: pesos de {2} GB + ativações de {3} GB por GPU não deixam espaço para o cache KV em {4} GB"},
    [MSG_FIT_LARGER_ITEM] = {"{0} ({1} GB)", "{0} ({1} GB)"},
    [MSG_FIT_LARGER] = {"One larger GPU holds it alone: {0}. A single GPU needs no inter-GPU synchronization, so it is "
                        "usually faster and simpler than several smaller ones.",
                        "Uma GPU maior comporta o modelo sozinha: {0}. Uma única GPU dispensa sincronização entre "
                        "GPUs; costuma ser mais rápida e mais simples que várias menores."},
};

const char *gpi_msg(gpi_msg_id id, int pt_br)
{
    if ((unsigned)id >= MSG_COUNT || !table[id].en)
        return "";
    return pt_br ? table[id].pt : table[id].en;
}

/* "{k|one|other}" at p: the form for argument k's count (one: the argument is "1", as both
 * languages write a count of one), copied to out; returns the characters of p used (0: not
 * such a choice). */
static size_t plural_choice(const char *p, const char *const *args, int nargs, char *out, size_t n, size_t *k)
{
    if (!(p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '|'))
        return 0;
    const char *one = p + 3, *bar = strchr(one, '|'), *end = bar ? strchr(bar + 1, '}') : NULL;
    if (!bar || !end || memchr(one, '}', (size_t)(bar - one)))
        return 0;
    int i = p[1] - '0';
    int singular = i < nargs && args[i] && !strcmp(args[i], "1");
    const char *from = singular ? one : bar + 1, *to = singular ? bar : end;
    for (; from < to && *k + 1 < n; from++)
        out[(*k)++] = *from;
    return (size_t)(end - p) + 1;
}

void gpi_msg_fill(char *out, size_t n, const char *tmpl, const char *const *args, int nargs)
{
    size_t k = 0;
    if (!n)
        return;
    for (const char *p = tmpl; *p && k + 1 < n; p++) {
        size_t used = plural_choice(p, args, nargs, out, n, &k);
        if (used) {
            p += used - 1;
            continue;
        }
        if (p[0] == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
            int i = p[1] - '0';
            const char *a = i < nargs && args[i] ? args[i] : "";
            while (*a && k + 1 < n)
                out[k++] = *a++;
            p += 2;
            continue;
        }
        out[k++] = *p;
    }
    out[k] = 0;
}

void gpi_buf_msg(gpi_buf *b, int pt_br, gpi_msg_id id, ...)
{
    const char *args[10];
    int n = 0;
    va_list ap;
    va_start(ap, id);
    for (const char *a; n < 10 && (a = va_arg(ap, const char *)) != NULL;)
        args[n++] = a;
    va_end(ap);
    char s[2048];
    gpi_msg_fill(s, sizeof s, gpi_msg(id, pt_br), args, n);
    gpi_buf_printf(b, "%s", s);
}

/* %g by locale: "0.125" / "0,125". */
static const char *fmt_g(char *out, size_t n, double v, int digits, int pt_br)
{
    snprintf(out, n, "%.*g", digits, v);
    for (char *p = out; pt_br && *p; p++)
        if (*p == '.')
            *p = ',';
    return out;
}

void gpi_msg_args(char *out, size_t n, gpi_msg_id id, int pt_br, const gpi_msg_arg *args, int nargs)
{
    char txt[10][128];
    const char *a[10];
    if (nargs > 10)
        nargs = 10;
    for (int i = 0; i < nargs; i++) {
        const gpi_msg_arg *x = &args[i];
        if (x->s)
            a[i] = pt_br && x->s_pt ? x->s_pt : x->s;
        else if (x->decimals < 0)
            a[i] = fmt_g(txt[i], sizeof txt[i], x->v, -x->decimals, pt_br);
        else
            a[i] = gpi_fmt_num(txt[i], sizeof txt[i], x->v, x->decimals, pt_br);
    }
    gpi_msg_fill(out, n, gpi_msg(id, pt_br), a, nargs);
}

const char *gpi_fmt_num(char *out, size_t n, double v, int decimals, int pt_br)
{
    char digits[64];
    if (decimals < 0)
        decimals = 0;
    if (decimals > 6)
        decimals = 6;
    if (!isfinite(v)) {
        snprintf(out, n, "-");
        return out;
    }
    snprintf(digits, sizeof digits, "%.*f", decimals, fabs(v));
    char *dot = strchr(digits, '.');
    size_t int_len = dot ? (size_t)(dot - digits) : strlen(digits);
    char tmp[96];
    size_t k = 0;
    int neg = v < 0 && strspn(digits, "0.") != strlen(digits);
    if (neg)
        tmp[k++] = '-';
    for (size_t i = 0; i < int_len && k < sizeof tmp - 3; i++) {
        if (i > 0 && (int_len - i) % 3 == 0)
            tmp[k++] = pt_br ? '.' : ',';
        tmp[k++] = digits[i];
    }
    if (dot) {
        tmp[k++] = pt_br ? ',' : '.';
        for (const char *p = dot + 1; *p && k < sizeof tmp - 1; p++)
            tmp[k++] = *p;
    }
    tmp[k] = 0;
    snprintf(out, n, "%s", tmp);
    return out;
}

const char *gpi_fmt_money(char *out, size_t n, double v, const char *currency, int pt_br)
{
    char num[80];
    gpi_fmt_num(num, sizeof num, v, fabs(v) < 100 ? 2 : 0, pt_br);
    const char *c = currency && *currency ? currency : "USD";
    if (!strcmp(c, "BRL"))
        snprintf(out, n, pt_br ? "R$ %s" : "BRL %s", num);
    else if (!strcmp(c, "USD"))
        snprintf(out, n, pt_br ? "US$ %s" : "$%s", num);
    else
        snprintf(out, n, "%s %s", c, num);
    return out;
}

/* ---- the public face of the table: front ends write their own lines from it ---------------- */
static const struct {
    const char *key;
    gpi_msg_id id;
} public_keys[] = {
    {"fit.verdict_one", MSG_FIT_TXT_ONE},
    {"fit.verdict_several", MSG_FIT_TXT_SEVERAL},
    {"fit.verdict_none", MSG_FIT_TXT_NONE},
    {"fit.asked_layout", MSG_FIT_TXT_ASKED},
    {"fit.smallest_setup", MSG_FIT_TXT_SMALLEST},
    {"fit.memory", MSG_FIT_TXT_MEMORY},
    {"fit.fits", MSG_FIT_TXT_FITS},
    {"fit.not_fits", MSG_FIT_TXT_NOT_FITS},
    {"fit.on_setup", MSG_FIT_TXT_ON_SETUP},
    {"fit.head_infer", MSG_FIT_TXT_HEAD_INFER},
    {"fit.head_train", MSG_FIT_TXT_HEAD_TRAIN},
    {"fit.weights", MSG_FIT_TXT_WEIGHTS},
    {"fit.kv_cache", MSG_FIT_TXT_KV},
    {"fit.activations", MSG_FIT_TXT_ACT},
    {"fit.gradients", MSG_FIT_TXT_GRAD},
    {"fit.optimizer", MSG_FIT_TXT_OPT},
    {"fit.overhead", MSG_FIT_TXT_OVERHEAD},
    {"fit.capacity", MSG_FIT_TXT_CAPACITY},
};

static int is_pt(const char *lang)
{
    return lang && !strcmp(lang, "pt-BR");
}

const char *gp_text(char *out, size_t n, const char *key, const char *lang, const char *const *args, int nargs)
{
    if (!out || !n)
        return "";
    out[0] = 0;
    for (size_t i = 0; key && i < sizeof public_keys / sizeof public_keys[0]; i++)
        if (!strcmp(public_keys[i].key, key)) {
            gpi_msg_fill(out, n, gpi_msg(public_keys[i].id, is_pt(lang)), args, nargs);
            break;
        }
    return out;
}

const char *gp_format_number(char *out, size_t n, double v, int decimals, const char *lang)
{
    return gpi_fmt_num(out, n, v, decimals, is_pt(lang));
}
