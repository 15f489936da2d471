// app.js: the gpuplan page. Reads the form, POSTs scenario documents to the local API
// (/api/fit, /api/serve or /api/train, /api/plan), and draws what comes back. Every figure
// shown carries its raw value in data-value, so tests compare it with the CLI's --json.
// One message table (MSG) holds every word of the page in English and Brazilian Portuguese;
// numbers and money follow the language. The form's state lives in the URL (?model=...).
'use strict';

const $ = (id) => document.getElementById(id);
const state = { seq: 0, timer: null, abort: null, models: [], gpus: [], lang: 'en', plan: null, perUsd: 1 };

// ---- messages --------------------------------------------------------------------------------
const MSG = {
  en: {
    tagline: 'Does this model, with this workload, fit on one GPU? If not: how many, of which kind, split how, at what speed and cost.',
    switch_to: 'Português', model_legend: 'Model', model_label: 'Catalog model', config_summary: '…or paste a config.json',
    config_hint: 'When this box holds JSON, it is the model (sent inline; nothing is read from disk).',
    workload_legend: 'Workload', task_label: 'Task', task_infer: 'serve (inference)', task_train: 'train (full)',
    task_lora: 'LoRA fine-tune', task_qlora: 'QLoRA fine-tune', dtype_label: 'Weights precision', dtype_stored: 'as stored',
    users_label: 'Concurrent users', prompt_label: 'Prompt tokens', output_label: 'Output tokens',
    ttft_label: 'TTFT p99 target (s)', tpot_label: 'TPOT p99 target (s)', seq_label: 'Sequence length', gpus_label: 'GPUs',
    tokens_label: 'Tokens to train (e.g. 1e9)', hw_legend: 'Hardware', any_gpu: 'any GPU (cheapest options)',
    tp_label: 'Tensor parallel (blank: search)', decision_legend: 'Decision (plan)', currency_label: 'Currency',
    currency_usd: 'USD (default)', rules_label: 'Data rules', rules_none: 'none (default)',
    rules_health: 'health data (Brazil, LGPD)', rules_finance: 'finance (CMN 4,893/2021)', rules_public: 'public sector (Brazil)',
    horizon_label: 'Horizon, months (blank: 36)', consumer_label: 'allow consumer GPUs (GeForce) in production',
    verdict_title: 'Verdict', precision_title: 'Precision: one GPU or several', col_precision: 'precision',
    col_weights: 'weights', col_one_gpu: 'one GPU?', col_min_gpus: 'GPUs needed', serve_title: 'Cheapest serving setup',
    fig_layout: 'Layout', fig_spares: 'Spares', fig_throughput: 'Throughput', fig_targets: 'Targets',
    fig_hour: 'Per hour (on-demand)', fig_month: 'Per month (730 h)', train_title: 'Training', fig_step: 'Step time',
    fig_tps: 'Tokens/s', fig_ttt: 'Time to train', fig_mem: 'Memory / GPU', fig_run: 'Cost per run',
    memory_title: 'Memory per GPU', options_title: 'Serving options, cheapest first', col_replicas: 'replicas',
    col_hour: 'per hour', col_meets: 'meets targets', plan_title: 'Plan: own or rent, cost and data rules',
    launch_title: 'Launch', cli_title: 'The same question on the command line',
    scenario_title: 'Scenario (POST /api/serve, /api/fit, /api/plan)', footer: 'runs on this machine, offline',
    one_enough: (g) => 'One ' + g + ' is enough.',
    not_enough: (n, g) => 'One GPU is not enough: at least ' + n + ' × ' + g + '.',
    no_layout: (g) => 'No layout of ' + g + ' holds it.',
    yes: 'yes', no: 'no', met: 'met', missed: 'missed', no_price: 'no price', none_found: 'none found',
    replicas: (n) => n + (n === 1 ? ' replica' : ' replicas'),
    spares_plan: (n, p) => n + ' in the plan' + (p ? ' (' + p + ')' : ''), spares_none: '0 (no spare asked)',
    computing: 'computing…', done: 'up to date', busy_plan: 'costing the plan…',
    col_where: 'where', col_capex: 'investment', col_opex: 'per month', col_total: (m) => 'over ' + m + ' months',
    col_mtok: 'per 1M tokens', col_run: 'per run', col_ttt: 'time to train', col_spares: 'spares',
    consumer: 'consumer card', excluded_n: (n) => n + ' option(s) excluded by the data rules (guidance, not legal advice):',
    excluded_rule: (r, n, c) => r + ': ' + n + ' option(s) excluded. ' + c,
    no_option: (n) => 'No option meets the question (' + n + ' excluded by the data rules).',
    rec_owned: (n, g, s, w) => 'Recommendation: ' + n + ' ' + g + ' GPUs in ' + s + ' server' + (s === 1 ? '' : 's') + ' you own ' + w + '.',
    rec_rented: (n, g, d) => 'Recommendation: ' + n + ' ' + g + ' GPUs rented: ' + d + '.',
    capex: (x) => 'Investment (CapEx): ' + x, opex: (x) => 'monthly cost (OpEx): ' + x, tco: (m, x) => 'total over ' + m + ' months: ' + x,
    break_even: (m, h, d) => 'Owning pays back in month ' + m + ' of ' + h + ' against ' + d + '.',
    in_br: 'in Brazil', in_us: 'in the United States',
    error_prefix: 'Could not answer: ', error_catalog: 'The model or GPU lists could not be loaded: ',
    error_config: 'The pasted config.json is not valid JSON: ', report_ready: 'report downloaded',
    launch_none: 'no setup meets the targets', launch_train: 'gpuplan export (see docs) for DeepSpeed / torchrun commands of this layout',
    chart_label: 'per hour (blue: meets the targets)', days: 'days', hours: 'h', minutes: 'min',
    plan_absent: 'plan: not in this build of gpuplan',
    mem_weights: 'weights', mem_kv_cache: 'KV cache', mem_activations: 'activations', mem_gradients: 'gradients',
    mem_optimizer: 'optimizer', mem_overhead: 'overhead', mem_total: 'total',
    serve_hint: 'Rented in a cloud by the hour, before data rules and buying: the plan below decides where and how.',
    capex_none: 'none, nothing is bought',
    kind_owned: 'owned', kind_baremetal: 'bare metal, monthly', kind_cloud: 'cloud, hourly',
    compare_title: 'Compared for this model, at this load', one_vs_two: 'One GPU or two smaller ones',
    nvlink_vs_pcie: 'NVLink or PCIe between the GPUs', col_setup: 'setup', col_mem_gpu: 'memory / GPU',
    col_tput: 'throughput', col_latency: 'TTFT / TPOT p99', col_cost_h: 'per hour',
    one_per_replica: (g) => 'one ' + g + ' per replica', two_per_replica: (n, g) => n + ' × ' + g + ' per replica (TP ' + n + ')',
    link_nvlink: (g, l) => g + ', ' + l, link_pcie: (g, l) => g + ', ' + l,
    win_one: (g, n, x, m, y) => 'One ' + g + ' per replica wins: ' + n + ' GPUs at ' + x + ' against ' + m + ' at ' + y +
      '. The model fits it whole, so no GPU waits for another; one larger GPU beats two smaller ones when the model fits it.',
    win_two: (g, n, x, m, y) => 'Two smaller ' + g + ' per replica win here: ' + n + ' GPUs at ' + x + ' against ' + m + ' at ' + y +
      '. Splitting costs synchronization between the GPUs, but the smaller cards are cheaper for this load.',
    win_tie: 'Both setups cost the same for this load.',
    win_one_gpus: (g, x, y) => 'One ' + g + ' per replica wins: ' + x + ' against ' + y + ' (one of them has no price, so compared by GPUs). The model fits it whole, so no GPU waits for another.',
    win_two_gpus: (g, x, y) => 'Two smaller ' + g + ' per replica win here: ' + x + ' against ' + y + ' (one of them has no price, so compared by GPUs).',
    win_only: (g, o) => 'Only the ' + g + ' setup meets the targets at this load; ' + o + ' does not (see the serving options).',
    win_nvlink: (tp, n, m) => 'NVLink wins: with tensor parallelism ' + tp + ' every layer exchanges activations between the GPUs, and NVLink carries that ' +
      'traffic much faster than PCIe, so the same load needs ' + n + ' GPUs instead of ' + m + '. Model parallelism wants NVLink.',
    win_link_same: (tp) => 'At tensor parallelism ' + tp + ' both links carry the load with the same GPUs; the link matters when the model is split over more GPUs.',
    not_met: 'no setup meets the targets', compare_none: 'No smaller GPU to split this model over: it fits the smallest ones whole.',
    compare_busy: 'comparing…', gpus_word: (n) => n + ' GPUs',
    tl_title: 'Throughput and latency of the serving options', tl_x: 'TPOT p99 (ms per output token)',
    tl_y: 'tokens/s per GPU', tl_target: 'TPOT target', tl_note: 'Further right is slower for each user, higher is more work from each GPU; filled dots meet the targets, the ringed one is the cheapest setup.',
  },
  'pt-BR': {
    tagline: 'Este modelo, com esta carga, cabe em uma GPU? Se não: quantas, de qual tipo, divididas como, com que velocidade e custo.',
    switch_to: 'English', model_legend: 'Modelo', model_label: 'Modelo do catálogo', config_summary: '…ou cole um config.json',
    config_hint: 'Quando esta caixa tem JSON, ele é o modelo (enviado junto; nada é lido do disco).',
    workload_legend: 'Carga de trabalho', task_label: 'Tarefa', task_infer: 'servir (inferência)', task_train: 'treinar (completo)',
    task_lora: 'ajuste fino LoRA', task_qlora: 'ajuste fino QLoRA', dtype_label: 'Precisão dos pesos', dtype_stored: 'como armazenado',
    users_label: 'Usuários simultâneos', prompt_label: 'Tokens de entrada', output_label: 'Tokens gerados',
    ttft_label: 'Meta de TTFT p99 (s)', tpot_label: 'Meta de TPOT p99 (s)', seq_label: 'Comprimento da sequência', gpus_label: 'GPUs',
    tokens_label: 'Tokens de treino (ex.: 1e9)', hw_legend: 'Hardware', any_gpu: 'qualquer GPU (opções mais baratas)',
    tp_label: 'Paralelismo de tensor (vazio: buscar)', decision_legend: 'Decisão (plano)', currency_label: 'Moeda',
    currency_usd: 'USD (padrão)', rules_label: 'Regras de dados', rules_none: 'nenhuma (padrão)',
    rules_health: 'dados de saúde (Brasil, LGPD)', rules_finance: 'financeiro (CMN 4.893/2021)', rules_public: 'setor público (Brasil)',
    horizon_label: 'Horizonte em meses (vazio: 36)', consumer_label: 'permitir GPUs de consumo (GeForce) em produção',
    verdict_title: 'Veredito', precision_title: 'Precisão: uma GPU ou várias', col_precision: 'precisão',
    col_weights: 'pesos', col_one_gpu: 'uma GPU?', col_min_gpus: 'GPUs necessárias', serve_title: 'Configuração de serviço mais barata',
    fig_layout: 'Divisão', fig_spares: 'Reservas', fig_throughput: 'Vazão', fig_targets: 'Metas',
    fig_hour: 'Por hora (sob demanda)', fig_month: 'Por mês (730 h)', train_title: 'Treinamento', fig_step: 'Tempo por passo',
    fig_tps: 'Tokens/s', fig_ttt: 'Tempo de treino', fig_mem: 'Memória / GPU', fig_run: 'Custo por treinamento',
    memory_title: 'Memória por GPU', options_title: 'Opções de serviço, da mais barata', col_replicas: 'réplicas',
    col_hour: 'por hora', col_meets: 'cumpre as metas', plan_title: 'Plano: comprar ou alugar, custo e regras de dados',
    launch_title: 'Execução', cli_title: 'A mesma pergunta na linha de comando',
    scenario_title: 'Cenário (POST /api/serve, /api/fit, /api/plan)', footer: 'roda nesta máquina, sem internet',
    one_enough: (g) => 'Uma ' + g + ' basta.',
    not_enough: (n, g) => 'Uma GPU não basta: são necessárias pelo menos ' + n + ' × ' + g + '.',
    no_layout: (g) => 'Nenhuma divisão em ' + g + ' comporta o modelo.',
    yes: 'sim', no: 'não', met: 'cumpridas', missed: 'não cumpridas', no_price: 'sem preço', none_found: 'nenhuma encontrada',
    replicas: (n) => n + (n === 1 ? ' réplica' : ' réplicas'),
    spares_plan: (n, p) => n + ' no plano' + (p ? ' (' + p + ')' : ''), spares_none: '0 (nenhuma reserva pedida)',
    computing: 'calculando…', done: 'atualizado', busy_plan: 'calculando o plano…',
    col_where: 'onde', col_capex: 'investimento', col_opex: 'por mês', col_total: (m) => 'em ' + m + ' meses',
    col_mtok: 'por 1 mi de tokens', col_run: 'por treinamento', col_ttt: 'tempo de treino', col_spares: 'reservas',
    consumer: 'placa de consumo', excluded_n: (n) => n + ' opção(ões) excluída(s) pelas regras de dados (orientação, não aconselhamento jurídico):',
    excluded_rule: (r, n, c) => r + ': ' + n + ' opção(ões) excluída(s). ' + c,
    no_option: (n) => 'Nenhuma opção atende à pergunta (' + n + ' excluídas pelas regras de dados).',
    rec_owned: (n, g, s, w) => 'Recomendação: ' + n + ' GPUs ' + g + ' em ' + s + (s === 1 ? ' servidor próprio ' : ' servidores próprios ') + w + '.',
    rec_rented: (n, g, d) => 'Recomendação: ' + n + ' GPUs ' + g + ' em locação: ' + d + '.',
    capex: (x) => 'Investimento inicial (CapEx): ' + x, opex: (x) => 'custo mensal (OpEx): ' + x, tco: (m, x) => 'total em ' + m + ' meses: ' + x,
    break_even: (m, h, d) => 'A compra se paga no mês ' + m + ' de ' + h + ' frente a ' + d + '.',
    in_br: 'no Brasil', in_us: 'nos Estados Unidos',
    error_prefix: 'Não foi possível responder: ', error_catalog: 'Não foi possível carregar as listas de modelos e GPUs: ',
    error_config: 'O config.json colado não é um JSON válido: ', report_ready: 'relatório baixado',
    launch_none: 'nenhuma configuração cumpre as metas', launch_train: 'gpuplan export (ver docs) gera os comandos DeepSpeed / torchrun desta divisão',
    chart_label: 'por hora (azul: cumpre as metas)', days: 'dias', hours: 'h', minutes: 'min',
    plan_absent: 'plano: não disponível nesta versão do gpuplan',
    mem_weights: 'pesos', mem_kv_cache: 'cache KV', mem_activations: 'ativações', mem_gradients: 'gradientes',
    mem_optimizer: 'otimizador', mem_overhead: 'sobrecarga', mem_total: 'total',
    serve_hint: 'Em locação por hora na nuvem, antes das regras de dados e da compra: o plano abaixo decide onde e como.',
    capex_none: 'nenhum, nada é comprado',
    kind_owned: 'próprio', kind_baremetal: 'bare metal, mensal', kind_cloud: 'nuvem, por hora',
    compare_title: 'Comparações para este modelo, com esta carga', one_vs_two: 'Uma GPU ou duas menores',
    nvlink_vs_pcie: 'NVLink ou PCIe entre as GPUs', col_setup: 'configuração', col_mem_gpu: 'memória / GPU',
    col_tput: 'vazão', col_latency: 'TTFT / TPOT p99', col_cost_h: 'por hora',
    one_per_replica: (g) => 'uma ' + g + ' por réplica', two_per_replica: (n, g) => n + ' × ' + g + ' por réplica (TP ' + n + ')',
    link_nvlink: (g, l) => g + ', ' + l, link_pcie: (g, l) => g + ', ' + l,
    win_one: (g, n, x, m, y) => 'Uma ' + g + ' por réplica vence: ' + n + ' GPUs por ' + x + ' contra ' + m + ' por ' + y +
      '. O modelo cabe inteiro nela, então nenhuma GPU espera por outra; uma GPU maior vence duas menores quando o modelo cabe nela.',
    win_two: (g, n, x, m, y) => 'Duas ' + g + ' menores por réplica vencem aqui: ' + n + ' GPUs por ' + x + ' contra ' + m + ' por ' + y +
      '. Dividir o modelo exige sincronização entre as GPUs, mas as placas menores saem mais baratas para esta carga.',
    win_tie: 'As duas configurações custam o mesmo para esta carga.',
    win_one_gpus: (g, x, y) => 'Uma ' + g + ' por réplica vence: ' + x + ' contra ' + y + ' (uma delas não tem preço, então a comparação é pelo número de GPUs). O modelo cabe inteiro nela, então nenhuma GPU espera por outra.',
    win_two_gpus: (g, x, y) => 'Duas ' + g + ' menores por réplica vencem aqui: ' + x + ' contra ' + y + ' (uma delas não tem preço, então a comparação é pelo número de GPUs).',
    win_only: (g, o) => 'Só a configuração com ' + g + ' cumpre as metas com esta carga; a com ' + o + ' não (veja as opções de serviço).',
    win_nvlink: (tp, n, m) => 'O NVLink vence: com paralelismo de tensor ' + tp + ', cada camada troca ativações entre as GPUs, e o NVLink leva esse ' +
      'tráfego muito mais rápido que o PCIe; a mesma carga precisa de ' + n + ' GPUs em vez de ' + m + '. Paralelismo de modelo pede NVLink.',
    win_link_same: (tp) => 'Com paralelismo de tensor ' + tp + ', as duas conexões atendem à carga com o mesmo número de GPUs; a conexão pesa quando o modelo é dividido em mais GPUs.',
    not_met: 'nenhuma configuração cumpre as metas', compare_none: 'Não há GPU menor para dividir este modelo: ele cabe inteiro nas menores.',
    compare_busy: 'comparando…', gpus_word: (n) => n + ' GPUs',
    tl_title: 'Vazão e latência das opções de serviço', tl_x: 'TPOT p99 (ms por token gerado)',
    tl_y: 'tokens/s por GPU', tl_target: 'meta de TPOT', tl_note: 'Mais à direita, mais lento para cada usuário; mais acima, mais trabalho de cada GPU; os pontos cheios cumprem as metas, e o contornado é a configuração mais barata.',
  },
};
const T = (k, ...a) => { const m = MSG[state.lang][k]; return typeof m === 'function' ? m(...a) : (m === undefined ? k : m); };
const pt = () => state.lang === 'pt-BR';

// ---- formatting (by language) ----------------------------------------------------------------
const nf = (x, d) => x.toLocaleString(pt() ? 'pt-BR' : 'en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const fmtGB = (b) => nf(b / 1e9, 1) + ' GB';
const fmtS = (s) => (s >= 1 ? nf(s, 2) + ' s' : nf(s * 1000, 1) + ' ms');
const fmtNum = (x) => (x >= 100 ? nf(Math.round(x), 0) : nf(x, 2));
function fmtMoney(x, cur) {
  if (typeof x !== 'number' || !isFinite(x)) return '–';
  const v = Math.abs(x) >= 100 ? nf(Math.round(x), 0) : nf(x, 2);
  if (cur === 'BRL') return (pt() ? 'R$ ' : 'BRL ') + v;
  if (!cur || cur === 'USD') return (pt() ? 'US$ ' : '$') + v;
  return cur + ' ' + v;
}
// an hourly USD price from /api/serve, in the plan's currency; 0 means no price
function fmtHourUSD(usd) {
  if (!usd) return T('no_price');
  return fmtMoney(usd * state.perUsd, currency()) + '/h';
}
function fmtDuration(s) {
  if (!isFinite(s) || s <= 0) return '–';
  if (s < 3600) return nf(s / 60, 1) + ' ' + T('minutes');
  if (s < 86400 * 2) return nf(s / 3600, 1) + ' ' + T('hours');
  return nf(s / 86400, 1) + ' ' + T('days');
}
function setFig(id, text, value) {
  const e = $(id);
  e.textContent = text;
  if (value === undefined || value === null) e.removeAttribute('data-value');
  else e.dataset.value = String(value);
}
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function svg(tag, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function translate() {
  document.documentElement.lang = state.lang;
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = T(e.dataset.i18n);
  $('lang').textContent = T('switch_to');
}

// ---- the scenario ----------------------------------------------------------------------------
const FIELDS = ['model', 'task', 'dtype', 'users', 'prompt_tokens', 'output_tokens', 'ttft_p99', 'tpot_p99', 'seq', 'gpus',
                'tokens', 'gpu', 'tp', 'currency', 'compliance', 'horizon_months'];
const currency = () => $('currency').value || 'USD';
function num(id) {
  const v = $(id).value.trim();
  if (v === '') return undefined;
  const n = Number(v);
  return isFinite(n) ? n : undefined;
}
function inlineConfig() {
  const t = $('config').value.trim();
  if (!t) return undefined;
  return JSON.parse(t); // a syntax error is shown as the error
}
function scenario() {
  const task = $('task').value;
  const s = {};
  const cfg = inlineConfig();
  s.model = cfg !== undefined ? cfg : $('model').value.trim();
  if (task !== 'infer') s.task = task;
  if ($('dtype').value) s.dtype = $('dtype').value;
  if ($('gpu').value) s.gpu = $('gpu').value; // none: any GPU
  const tp = num('tp');
  if (tp) s.tp = tp;
  if (task === 'infer') {
    for (const k of ['users', 'prompt_tokens', 'output_tokens', 'ttft_p99', 'tpot_p99']) {
      const v = num(k);
      if (v !== undefined && v > 0) s[k] = v;
    }
  } else {
    const seq = num('seq'), gpus = num('gpus'), tokens = $('tokens').value.trim();
    if (seq) s.seq = seq;
    if (gpus) s.gpus = gpus;
    if (tokens) s.tokens = tokens;
  }
  return s;
}
// the fit question: one sequence of prompt + output tokens on the GPU the answer uses
function fitScenario(s, gpu) {
  const f = { model: s.model, gpu };
  for (const k of ['task', 'dtype', 'tp', 'seq']) if (s[k] !== undefined) f[k] = s[k];
  if (!s.task) f.context = (s.prompt_tokens || 1000) + (s.output_tokens || 200);
  if (pt()) f.lang = 'pt-BR'; // the library writes the reasons in Portuguese
  return f;
}
// the plan question: the workload plus the decision inputs a user changed from plan's defaults
function planScenario(s) {
  const p = Object.assign({}, s);
  if ($('currency').value) p.currency = $('currency').value;
  if ($('compliance').value) p.compliance = $('compliance').value;
  const h = num('horizon_months');
  if (h) p.horizon_months = h;
  if ($('allow_consumer').checked) p.allow_consumer = true;
  if (state.lang === 'pt-BR') p.lang = 'pt-BR';
  return p;
}
function cliLine(cmd, s) {
  const parts = ['gpuplan', cmd];
  for (const [k, v] of Object.entries(s)) {
    const flag = '--' + k.replace(/_/g, '-');
    if (k === 'model' && typeof v === 'object') { parts.push('--model', 'config.json'); continue; }
    if (v === true) parts.push(flag);
    else parts.push(flag, String(v));
  }
  return parts.join(' ');
}

// ---- the URL holds the state -----------------------------------------------------------------
function saveURL() {
  const q = new URLSearchParams();
  for (const k of FIELDS) {
    const v = $(k).value.trim();
    if (v !== '' && v !== $(k).dataset.initial) q.set(k, v);
  }
  if ($('allow_consumer').checked) q.set('allow_consumer', '1');
  q.set('lang', state.lang);
  history.replaceState(null, '', '?' + q.toString());
}
function loadURL() {
  const q = new URLSearchParams(location.search);
  for (const k of FIELDS) if (q.has(k)) $(k).value = q.get(k);
  $('allow_consumer').checked = q.get('allow_consumer') === '1';
  const l = q.get('lang');
  if (l === 'pt-BR' || l === 'en') state.lang = l;
  else state.lang = /^pt\b/i.test(navigator.language || '') ? 'pt-BR' : 'en'; // the browser's Accept-Language
}

// ---- API -------------------------------------------------------------------------------------
async function post(path, body, signal) {
  const r = await fetch(path, { method: 'POST', body: JSON.stringify(body), signal,
                                headers: { 'Content-Type': 'application/json' } });
  const doc = await r.json();
  if (!r.ok) {
    const e = new Error(doc && doc.error ? doc.error.message : 'HTTP ' + r.status);
    e.status = r.status;
    throw e;
  }
  return doc;
}

// ---- drawing ---------------------------------------------------------------------------------
const COMPONENTS = ['weights', 'kv_cache', 'activations', 'gradients', 'optimizer', 'overhead'];
function drawMemory(mem, title) {
  const bar = $('memory-bar'), legend = $('memory-legend');
  bar.replaceChildren();
  legend.replaceChildren();
  $('memory-title').textContent = title || '';
  if (!mem) return;
  const top = Math.max(mem.per_gpu_bytes, mem.capacity_bytes) || 1;
  COMPONENTS.forEach((k, i) => {
    const b = mem.components[k] || 0;
    if (!b) return;
    const seg = el('span', { class: 'k' + i, title: k + ': ' + fmtGB(b) });
    seg.style.width = (100 * b / top) + '%';
    bar.appendChild(seg);
    const li = el('li');
    li.appendChild(el('i', { class: 'k' + i }));
    li.appendChild(document.createTextNode(T('mem_' + k) + ' ' + fmtGB(b)));
    li.dataset.component = k;
    li.dataset.value = String(b);
    legend.appendChild(li);
  });
  const cap = el('span', { class: 'cap', title: 'capacity ' + fmtGB(mem.capacity_bytes) });
  cap.style.left = (100 * mem.capacity_bytes / top) + '%';
  bar.appendChild(cap);
  const li = el('li', {}, T('mem_total') + ' ' + fmtGB(mem.per_gpu_bytes) + ' / ' + fmtGB(mem.capacity_bytes) + ' (|)');
  li.dataset.component = 'per_gpu';
  li.dataset.value = String(mem.per_gpu_bytes);
  legend.appendChild(li);
}

function drawVerdict(fit) {
  const v = fit.verdict, p = $('verdict');
  const found = v.layout_found !== undefined ? v.layout_found : v.fits;
  let text, cls;
  if (v.single_gpu_sufficient) { text = T('one_enough', fit.gpu); cls = 'ok'; }
  else if (found) { text = T('not_enough', v.min_gpus, fit.gpu); cls = 'warn'; }
  else { text = T('no_layout', fit.gpu); cls = 'bad'; }
  p.textContent = text;
  p.className = 'verdict ' + cls;
  p.dataset.fits = String(v.fits);
  p.dataset.singleGpu = String(v.single_gpu_sufficient);
  p.dataset.minGpus = String(v.min_gpus);
  p.dataset.gpu = fit.gpu;
  const ul = $('reasons');
  ul.replaceChildren();
  for (const r of v.reasons) ul.appendChild(el('li', { 'data-code': r.code }, r.message)); // in the page's language (fit --lang)
  const rec = fit.recommended;
  if (rec) drawMemory(rec.memory, '(' + rec.layout.gpus + ' × ' + fit.gpu + ', TP ' + rec.layout.tp + ', PP ' + rec.layout.pp + ')');
  else drawMemory(fit.memory, '');
}

// which weights fit one GPU and which need several (the precision table)
function drawPrecisions(list) {
  const tb = $('precisions').querySelector('tbody');
  tb.replaceChildren();
  for (const { dtype, fit } of list) {
    const tr = el('tr', { 'data-dtype': dtype });
    const v = fit.verdict, w = (fit.memory.components || {}).weights || 0;
    tr.appendChild(el('td', {}, dtype));
    tr.appendChild(el('td', {}, fmtGB(w)));
    tr.appendChild(el('td', { class: v.single_gpu_sufficient ? 'yes' : 'no' }, v.single_gpu_sufficient ? T('yes') : T('no')));
    const n = el('td', {}, (v.layout_found !== undefined ? v.layout_found : v.fits) ? String(v.min_gpus) : '–');
    n.dataset.value = String(v.min_gpus);
    tr.appendChild(n);
    tb.appendChild(tr);
  }
}

function rankedOptions(serve) {
  const price = (o) => (o.usd_per_hour > 0 ? o.usd_per_hour : Infinity); // no price: last
  return serve.options.slice().sort((a, b) =>
    (b.meets - a.meets) || (price(a) - price(b)) || (a.gpus_total - b.gpus_total));
}

function drawServe(serve) {
  const l = serve.layout, p = serve.perf;
  const gpus = serve.found ? l.gpus_total : 0;
  setFig('serve-gpus', serve.found ? gpus + ' × ' + serve.gpu : T('none_found'), gpus);
  setFig('serve-layout', serve.found ? 'TP ' + l.tp + ' × ' + T('replicas', l.replicas) : '–', l.tp + 'x' + l.replicas);
  setFig('serve-spares', T('spares_none'), 0);
  setFig('serve-ttft', fmtS(p.ttft_p99_s), p.ttft_p99_s);
  setFig('serve-tpot', fmtS(p.tpot_p99_s), p.tpot_p99_s);
  setFig('serve-throughput', fmtNum(p.throughput_tokens_per_s) + ' tok/s', p.throughput_tokens_per_s);
  setFig('serve-slo', serve.slo.met ? T('met') : T('missed'), serve.slo.met);
  setFig('serve-cost', fmtHourUSD(serve.usd_per_hour), serve.usd_per_hour);
  setFig('serve-month', serve.usd_per_hour ? fmtMoney(serve.usd_per_hour * 730 * state.perUsd, currency()) : T('no_price'),
         serve.usd_per_hour * 730);

  const opts = rankedOptions(serve);
  const tbody = $('options').querySelector('tbody');
  tbody.replaceChildren();
  opts.forEach((o, i) => {
    const tr = el('tr');
    if (serve.found && o.gpu === serve.gpu && o.tp === l.tp && o.replicas === l.replicas) tr.className = 'best';
    const cells = [i + 1, o.gpu, o.tp, o.replicas, o.gpus_total, fmtHourUSD(o.usd_per_hour), fmtS(o.ttft_p99_s), fmtS(o.tpot_p99_s)];
    cells.forEach((t, k) => {
      const td = el('td', {}, String(t));
      if (k === 1 && (state.gpus.find((g) => g.id === o.gpu) || {}).consumer) td.appendChild(el('span', { class: 'tag' }, T('consumer')));
      if (k === 5) td.dataset.value = String(o.usd_per_hour);
      tr.appendChild(td);
    });
    tr.appendChild(el('td', { class: o.meets ? 'yes' : 'no' }, o.meets ? T('yes') : T('no')));
    tbody.appendChild(tr);
  });
  drawChart(opts.filter((o) => o.usd_per_hour > 0).slice(0, 12));
  drawTradeoff(serve);

  const hf = (state.models.find((m) => m.id === serve.model) || {}).name || serve.model;
  const ctx = (num('prompt_tokens') || 1000) + (num('output_tokens') || 200);
  $('launch').textContent = serve.found
    ? '# ' + T('replicas', l.replicas) + ' × ' + l.tp + ' × ' + serve.gpu + ':\n' +
      'vllm serve ' + hf + ' --tensor-parallel-size ' + l.tp + ' --max-model-len ' + ctx +
      ' --gpu-memory-utilization 0.9' + ($('dtype').value === 'fp8' ? ' --quantization fp8' : '')
    : T('launch_none');
}

function drawChart(opts) {
  const box = $('chart');
  box.replaceChildren();
  if (!opts.length) return;
  const W = 600, rowH = 20, left = 190, H = opts.length * rowH + 24;
  const max = Math.max(...opts.map((o) => o.usd_per_hour)) || 1;
  const s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': T('chart_label') });
  s.appendChild(svg('text', { x: left, y: 12 }, T('chart_label')));
  opts.forEach((o, i) => {
    const y = 20 + i * rowH, w = Math.max(1, (W - left - 90) * o.usd_per_hour / max);
    s.appendChild(svg('text', { x: left - 6, y: y + 13, 'text-anchor': 'end' }, o.gpu + ' TP' + o.tp + ' ×' + o.replicas));
    s.appendChild(svg('rect', { x: left, y: y + 2, width: w, height: rowH - 6, class: o.meets ? 'bar-ok' : 'bar-no' }));
    s.appendChild(svg('text', { x: left + w + 4, y: y + 13 }, fmtHourUSD(o.usd_per_hour)));
  });
  box.appendChild(s);
}

// ---- comparisons for the chosen model, at the same load: one GPU or two smaller ones, and
// NVLink or PCIe between the GPUs (each side is a /api/serve answer with the GPU and TP fixed)
const gpuOf = (id) => state.gpus.find((g) => g.id === id) || {};
function pairOneVsTwo(fit) {
  const v = fit.verdict;
  if (!v.single_gpu_sufficient) { // one larger GPU that holds it alone vs this GPU, split
    const all = (v.larger_gpus || []).map((x) => x.gpu);
    const bigs = all.filter((g) => gpuOf(g).vendor === gpuOf(fit.gpu).vendor).concat(all.filter((g) => gpuOf(g).vendor !== gpuOf(fit.gpu).vendor));
    return bigs.length ? { bigs: bigs.slice(0, 3), small: fit.gpu } : null;
  }
  // it fits one GPU: the smallest that holds it whole vs the largest of the same maker that does not
  const need = fit.memory.per_gpu_bytes;
  // datacenter GPUs, those with a price (in the serving options) first
  const priced = new Set(((state.serve || {}).options || []).filter((o) => o.usd_per_hour > 0).map((o) => o.gpu));
  const dc = state.gpus.filter((g) => !g.consumer).sort((a, b) => priced.has(b.id) - priced.has(a.id));
  const smalls = dc.filter((g) => g.memory_bytes < need && 2 * g.memory_bytes >= need);
  const small = smalls.filter((g) => priced.has(g.id)).sort((a, b) => b.memory_bytes - a.memory_bytes)[0] ||
                smalls.sort((a, b) => b.memory_bytes - a.memory_bytes)[0];
  if (!small) return null;
  const holders = dc.filter((g) => g.vendor === small.vendor && g.memory_bytes >= need);
  const big = holders.filter((g) => priced.has(g.id) === priced.has(small.id)).sort((a, b) => a.memory_bytes - b.memory_bytes)[0] ||
              holders.sort((a, b) => a.memory_bytes - b.memory_bytes)[0];
  if (!big) return null;
  return small ? { bigs: [big.id], small: small.id } : null;
}
function pairLinks(gpu) {
  const has = (id) => state.gpus.some((g) => g.id === id);
  if (/-SXM-/.test(gpu) && has(gpu.replace('-SXM-', '-PCIE-'))) return { nv: gpu, pcie: gpu.replace('-SXM-', '-PCIE-') };
  if (/-PCIE-/.test(gpu) && has(gpu.replace('-PCIE-', '-SXM-'))) return { nv: gpu.replace('-PCIE-', '-SXM-'), pcie: gpu };
  return has('H100-SXM-80GB') && has('H100-PCIE-80GB') ? { nv: 'H100-SXM-80GB', pcie: 'H100-PCIE-80GB' } : null;
}
// tensor parallelism for the link comparison: beyond a 2-GPU bridge (so PCIe carries traffic),
// and enough GPUs to hold the model
function linkTP(fit, gpu) {
  const n = Math.ceil(fit.memory.per_gpu_bytes / (gpuOf(gpu).memory_bytes || 1));
  let tp = 4;
  while (tp < n && tp < 8) tp *= 2;
  return tp;
}
async function compareServe(s, gpu, tp, signal) {
  const doc = await post('/api/serve', Object.assign({}, s, { gpu, tp }), signal).catch((e) => (e.name === 'AbortError' ? Promise.reject(e) : null));
  return { gpu, tp, doc };
}
const COMPARE_COLS = () => [T('col_setup'), 'GPUs', T('col_mem_gpu'), T('col_tput'), T('col_latency'), T('col_cost_h')];
function compareRow(tb, key, label, side) {
  const d = side.doc, tr = el('tr', { 'data-side': key, 'data-gpu': side.gpu, 'data-tp': String(side.tp) });
  const found = d && d.found, cols = COMPARE_COLS();
  const td = (text, value) => { // data-label: the column's name, shown beside the figure on a phone
    const c = el('td', { 'data-label': cols[tr.children.length] }, text);
    if (value !== undefined) c.dataset.value = String(value);
    tr.appendChild(c);
  };
  td(label);
  td(found ? String(d.layout.gpus_total) : T('not_met'), found ? d.layout.gpus_total : 0);
  td(fmtGB(gpuOf(side.gpu).memory_bytes || 0), gpuOf(side.gpu).memory_bytes);
  td(found ? fmtNum(d.perf.throughput_tokens_per_s) + ' tok/s' : '–', found ? d.perf.throughput_tokens_per_s : undefined);
  td(found ? fmtS(d.perf.ttft_p99_s) + ' / ' + fmtS(d.perf.tpot_p99_s) : '–', found ? d.perf.tpot_p99_s : undefined);
  td(found ? fmtHourUSD(d.usd_per_hour) : '–', found ? d.usd_per_hour : undefined);
  tb.appendChild(tr);
}
function compareTable(box, id, title, rows, why) {
  const sec = el('section', { id, class: 'compare' });
  sec.appendChild(el('h3', {}, title));
  const t = el('table', { class: 'figures-table' });
  const head = el('tr');
  for (const h of COMPARE_COLS()) head.appendChild(el('th', {}, h));
  t.appendChild(el('thead')).appendChild(head);
  const tb = t.appendChild(el('tbody'));
  for (const [key, label, side] of rows) compareRow(tb, key, label, side);
  const sc = el('div', { class: 'scroll' });
  sc.appendChild(t);
  sec.appendChild(sc);
  sec.appendChild(el('p', { class: 'why', 'data-testid': id + '-why' }, why));
  box.appendChild(sec);
}
const sideGpus = (x) => (x.doc && x.doc.found ? x.doc.layout.gpus_total : Infinity);
const sidePrice = (x) => (x.doc && x.doc.found && x.doc.usd_per_hour > 0 ? x.doc.usd_per_hour : Infinity);
// who wins and why, from the two answers: price when both have one, else the GPUs needed
function whyOneVsTwo(one, two) {
  const byPrice = isFinite(sidePrice(one)) && isFinite(sidePrice(two));
  const a = byPrice ? sidePrice(one) : sideGpus(one), b = byPrice ? sidePrice(two) : sideGpus(two);
  if (!isFinite(a) && !isFinite(b)) return T('not_met');
  if (!isFinite(a) || !isFinite(b)) return T('win_only', isFinite(a) ? one.gpu : two.gpu, isFinite(a) ? two.gpu : one.gpu);
  if (a === b) return T('win_tie');
  const m = (x) => x.doc.layout.gpus_total + ' × ' + x.gpu;
  if (!byPrice) return T(a < b ? 'win_one_gpus' : 'win_two_gpus', a < b ? one.gpu : two.gpu, m(a < b ? one : two), m(a < b ? two : one));
  const fig = (x) => fmtHourUSD(x.doc.usd_per_hour);
  return a < b ? T('win_one', one.gpu, sideGpus(one), fig(one), m(two), fig(two))
               : T('win_two', two.gpu, sideGpus(two), fig(two), m(one), fig(one));
}
async function drawCompare(s, fit, signal) {
  const box = $('compare');
  box.replaceChildren(el('p', { class: 'hint' }, T('compare_busy')));
  const pair = pairOneVsTwo(fit), links = pairLinks(fit.gpu);
  let one, two;
  if (pair) {
    // the first larger GPU that serves it alone (the fit holds the whole memory; an engine keeps
    // some back, so a GPU that just holds the weights may have no room left for the KV cache)
    for (const g of pair.bigs) if ((one = await compareServe(s, g, 1, signal)).doc && one.doc.found) break;
    two = await compareServe(s, pair.small, 2, signal);
  }
  const tp = links ? linkTP(fit, links.nv) : 0;
  const [nv, pc] = links ? await Promise.all([compareServe(s, links.nv, tp, signal), compareServe(s, links.pcie, tp, signal)]) : [];
  box.replaceChildren();
  if (pair)
    compareTable(box, 'one-vs-two', T('one_vs_two'), [['one', T('one_per_replica', one.gpu), one], ['two', T('two_per_replica', 2, two.gpu), two]],
                 whyOneVsTwo(one, two));
  else box.appendChild(el('p', { class: 'hint', id: 'one-vs-two' }, T('compare_none')));
  if (links) {
    const lname = (g) => (gpuOf(g).scale_up || {}).name || 'PCIe';
    const better = sideGpus(nv) < sideGpus(pc);
    compareTable(box, 'nvlink-vs-pcie', T('nvlink_vs_pcie') + ' (TP ' + tp + ')',
                 [['nvlink', T('link_nvlink', links.nv, lname(links.nv)), nv],
                  ['pcie', T('link_pcie', links.pcie, lname(links.pcie) + ', PCIe gen ' + gpuOf(links.pcie).pcie_gen), pc]],
                 better ? T('win_nvlink', tp, sideGpus(nv), isFinite(sideGpus(pc)) ? sideGpus(pc) : '–') : T('win_link_same', tp));
  }
}

// throughput per GPU against latency per output token for every serving option (SVG)
function drawTradeoff(serve) {
  const box = $('tradeoff');
  box.replaceChildren();
  const pts = (serve.options || []).filter((o) => o.per_replica_throughput_tokens_per_s > 0 && o.tpot_p99_s > 0)
    .map((o) => ({ o, x: o.tpot_p99_s * 1000, y: o.per_replica_throughput_tokens_per_s / (o.gpus_per_replica || o.tp || 1) }));
  if (!pts.length) return;
  const W = 400, H = 260, L = 60, R = 12, TOP = 12, B = 40;
  const nice = (v) => { const p = Math.pow(10, Math.floor(Math.log10(v))); return [1, 2, 2.5, 5, 10].map((k) => k * p).find((k) => k >= v); };
  const xmax = nice(Math.max(...pts.map((p) => p.x)) * 1.05), ymax = nice(Math.max(...pts.map((p) => p.y)) * 1.05);
  const X = (x) => L + (W - L - R) * x / xmax, Y = (y) => H - B - (H - B - TOP) * y / ymax;
  const g = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': T('tl_title'), id: 'tradeoff-svg' });
  for (let i = 0; i <= 4; i++) {
    const xv = xmax * i / 4, yv = ymax * i / 4;
    g.appendChild(svg('line', { x1: L, x2: W - R, y1: Y(yv), y2: Y(yv), class: 'grid' }));
    const tick = (v) => nf(v, Number.isInteger(v) ? 0 : 1);
    g.appendChild(svg('text', { x: L - 4, y: Y(yv) + 4, 'text-anchor': 'end' }, tick(yv)));
    g.appendChild(svg('text', { x: X(xv), y: H - B + 14, 'text-anchor': 'middle' }, tick(xv)));
  }
  g.appendChild(svg('line', { x1: L, x2: L, y1: TOP, y2: H - B, class: 'axis' }));
  g.appendChild(svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
  g.appendChild(svg('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label' }, T('tl_x')));
  g.appendChild(svg('text', { x: 11, y: (TOP + H - B) / 2, 'text-anchor': 'middle', class: 'label',
                              transform: 'rotate(-90 11 ' + (TOP + H - B) / 2 + ')' }, T('tl_y')));
  const target = ((serve.slo || {}).tpot_p99_s || 0) * 1000; // the TPOT target, where it is on the chart
  if (target > 0 && target <= xmax) {
    g.appendChild(svg('line', { x1: X(target), x2: X(target), y1: TOP, y2: H - B, class: 'target', 'data-x': String(target) }));
    g.appendChild(svg('text', { x: X(target) - 4, y: TOP + 10, 'text-anchor': 'end', class: 'label' }, T('tl_target')));
  }
  const l = serve.layout || {};
  for (const p of pts) {
    const best = serve.found && p.o.gpu === serve.gpu && p.o.tp === l.tp && p.o.replicas === l.replicas;
    const c = svg('circle', { cx: X(p.x), cy: Y(p.y), r: best ? 6 : 4, class: (p.o.meets ? 'pt-ok' : 'pt-no') + (best ? ' pt-best' : ''),
                              'data-gpu': p.o.gpu, 'data-tp': String(p.o.tp), 'data-x': String(p.x), 'data-y': String(p.y) });
    c.appendChild(svg('title', {}, p.o.gpus_total + ' × ' + p.o.gpu + ' (TP ' + p.o.tp + '): ' + fmtNum(p.y) + ' tok/s/GPU, ' + fmtS(p.x / 1000)));
    g.appendChild(c);
    const right = X(p.x) > (L + W - R) / 2; // the label on the side with room
    if (best) g.appendChild(svg('text', { x: X(p.x) + (right ? -8 : 8), y: Y(p.y) - 8, class: 'label', 'text-anchor': right ? 'end' : 'start' },
                                p.o.gpu + ' TP' + p.o.tp));
  }
  box.appendChild(g);
}

function drawTrain(t) {
  const l = t.layout, p = t.perf;
  setFig('train-layout', 'TP ' + l.tp + ' PP ' + l.pp + ' DP ' + l.dp + (l.zero ? ' ZeRO-' + l.zero : ''), l.gpus);
  setFig('train-step', fmtS(p.step_time_s), p.step_time_s);
  setFig('train-tps', fmtNum(p.tokens_per_s), p.tokens_per_s);
  setFig('train-mfu', nf(100 * p.mfu, 1) + '%', p.mfu);
  setFig('train-ttt', fmtDuration(p.time_to_train_s), p.time_to_train_s);
  setFig('train-mem', fmtGB(t.memory.per_gpu_bytes), t.memory.per_gpu_bytes);
  setFig('train-run', '–', null);
  $('launch').textContent = T('launch_train');
}

function where(country) { return country === 'BR' ? T('in_br') : country === 'US' ? T('in_us') : country; }
function depName(d) { return (pt() && d.name_pt) ? d.name_pt : d.name; }
function depShort(d) { return d.kind ? T('kind_' + d.kind) + ', ' + d.country : ''; }

// the plan's one-line answer: what to do, CapEx and OpEx, break-even against the allowed rental
function drawDecision(plan) {
  const box = $('decision');
  box.replaceChildren();
  const r = plan.recommended;
  if (!r) return;
  const hw = r.hardware, c = r.cost, cur = plan.currency;
  const d = el('div', { class: 'decision', 'data-testid': 'decision' });
  const line = hw.deployment.kind === 'owned'
    ? T('rec_owned', hw.gpus_total, hw.gpu, hw.servers, where(hw.deployment.country))
    : T('rec_rented', hw.gpus_total, hw.gpu, depName(hw.deployment));
  d.appendChild(el('p', { class: 'headline' }, line));
  if (plan.task === 'train')
    d.appendChild(el('p', {}, T('fig_run') + ': ' + fmtMoney(c.per_run, cur) + '; ' + T('fig_ttt') + ': ' +
                              fmtDuration(r.perf.time_to_train_with_failures_s || r.perf.time_to_train_s)));
  else
    d.appendChild(el('p', {}, T('capex', c.capex ? fmtMoney(c.capex, cur) : T('capex_none')) + '; ' + T('opex', fmtMoney(c.opex_monthly, cur)) + '; ' +
                              T('tco', plan.horizon_months, fmtMoney(c.total, cur)) + '.'));
  if (c.break_even_month)
    d.appendChild(el('p', { 'data-break-even': String(c.break_even_month) },
                  T('break_even', c.break_even_month, plan.horizon_months, c.break_even_vs)));
  box.appendChild(d);
}

function drawPlan(plan) {
  state.plan = plan;
  if (plan.per_usd && state.serve && plan.per_usd !== state.perUsd) { // every card in the plan's currency
    state.perUsd = plan.per_usd;
    drawServe(state.serve);
  }
  const box = $('plan');
  box.replaceChildren();
  drawDecision(plan);
  const opts = plan.options || [];
  const train = plan.task === 'train';
  if (!opts.length) { box.textContent = T('no_option', (plan.excluded || []).length); return; }
  const cur = plan.currency || 'USD';
  const money = (x) => fmtMoney(x, cur);
  const scroll = el('div', { class: 'scroll' });
  const t = el('table', { id: 'plan-options' });
  const head = el('tr');
  const cols = train ? ['#', 'GPUs', T('col_where'), T('col_run'), T('col_ttt'), T('col_capex')]
                     : ['#', 'GPUs', T('col_where'), T('col_opex'), T('col_total', plan.horizon_months || 36), T('col_capex'),
                        T('col_spares'), T('col_mtok')];
  for (const h of cols) head.appendChild(el('th', {}, h));
  t.appendChild(el('thead')).appendChild(head);
  const tb = t.appendChild(el('tbody'));
  opts.slice(0, 10).forEach((o, i) => {
    const tr = el('tr');
    const hw = o.hardware || {}, c = o.cost || {};
    if (i === 0) tr.className = 'best';
    const gpuCell = el('td', {}, (hw.gpus_total || '') + ' × ' + (hw.gpu || '') + ' ' + (hw.dtype || ''));
    if (hw.consumer) gpuCell.appendChild(el('span', { class: 'tag' }, T('consumer')));
    const dep = el('td', { title: depName(hw.deployment || {}) }, depShort(hw.deployment || {}));
    const cells = train
      ? [o.rank || i + 1, gpuCell, dep, money(c.per_run), fmtDuration(o.perf.time_to_train_with_failures_s), c.capex ? money(c.capex) : '–']
      : [o.rank || i + 1, gpuCell, dep, money(c.monthly), money(c.total), c.capex ? money(c.capex) : '–',
         String((o.reliability || {}).spare_replicas || 0), money(c.per_million_tokens)];
    cells.forEach((x, k) => {
      const td = x instanceof Node ? x : el('td', {}, String(x));
      if (k === 3) td.dataset.value = String(train ? c.per_run : c.monthly);
      tr.appendChild(td);
    });
    tb.appendChild(tr);
  });
  scroll.appendChild(t);
  box.appendChild(scroll);
  if (plan.excluded && plan.excluded.length) {
    // each rule that excluded options, how many, and its citation (guidance, not legal advice)
    const byRule = new Map();
    for (const x of plan.excluded) {
      const r = byRule.get(x.rule) || { n: 0, citation: x.citation || '' };
      r.n++;
      byRule.set(x.rule, r);
    }
    const ul = el('ul', { id: 'plan-excluded' });
    for (const [rule, r] of byRule) ul.appendChild(el('li', { 'data-rule': rule }, T('excluded_rule', rule, r.n, r.citation)));
    box.appendChild(el('p', { class: 'hint' }, T('excluded_n', plan.excluded.length)));
    box.appendChild(ul);
  }
  // the serving card says the spares the plan adds (a data profile's n+1)
  const rec = plan.recommended;
  if (rec && !train) {
    const sp = (rec.reliability || {}).spare_replicas || 0;
    if (sp) setFig('serve-spares', T('spares_plan', sp, plan.profile.id !== 'none' ? plan.profile.id : ''), sp);
  }
  if (rec && train) setFig('train-run', fmtMoney(rec.cost.per_run, cur), rec.cost.per_run);
}

// ---- errors replace what they make stale -----------------------------------------------------
function clearResults() {
  for (const id of ['serve-gpus', 'serve-layout', 'serve-spares', 'serve-ttft', 'serve-tpot', 'serve-throughput', 'serve-slo',
                    'serve-cost', 'serve-month', 'train-layout', 'train-step', 'train-tps', 'train-mfu', 'train-ttt',
                    'train-mem', 'train-run'])
    setFig(id, '–', null);
  $('verdict').textContent = '–';
  $('verdict').className = 'verdict';
  for (const id of ['reasons', 'memory-legend', 'memory-bar', 'chart', 'decision', 'tradeoff', 'compare']) $(id).replaceChildren();
  for (const id of ['options', 'precisions']) $(id).querySelector('tbody').replaceChildren();
  $('plan').textContent = '–';
  $('launch').textContent = '–';
  state.plan = null;
}
function showError(text) {
  clearResults();
  const e = $('error');
  e.textContent = text;
  e.hidden = false;
}
function setStatus(stateName, text) {
  const s = $('status');
  s.dataset.state = stateName;
  s.textContent = text;
  if (stateName !== 'error') $('error').hidden = true;
}

// ---- the update loop -------------------------------------------------------------------------
async function update() {
  const seq = ++state.seq;
  if (state.abort) state.abort.abort();
  const ctrl = new AbortController();
  state.abort = ctrl;
  document.body.className = 'task-' + ($('task').value === 'infer' ? 'infer' : 'train');
  saveURL();
  let s;
  try {
    s = scenario();
  } catch (e) {
    setStatus('error', T('error_config') + e.message);
    showError(T('error_config') + e.message);
    return;
  }
  $('scenario').textContent = JSON.stringify(s, null, 2);
  const cmd = s.task ? 'train' : 'serve';
  $('cli').textContent = cliLine(cmd, s);
  setStatus('busy', T('computing'));
  try {
    state.perUsd = 1; // until the plan says the rate of its currency
    const mainDoc = await post('/api/' + cmd, cmd === 'train' && !s.gpu ? Object.assign({ gpu: 'H100-SXM-80GB' }, s) : s, ctrl.signal);
    if (seq !== state.seq) return;
    // the GPU the answer uses: the one asked, or the cheapest setup's
    const gpu = s.gpu || (cmd === 'serve' && mainDoc.found ? mainDoc.gpu : mainDoc.gpu || 'H100-SXM-80GB');
    const fitDoc = fitScenario(s, gpu);
    const fit = post('/api/fit', fitDoc, ctrl.signal);
    const precisions = cmd === 'serve' && typeof s.model === 'string'
      ? Promise.all(['bf16', 'fp8', 'int8', 'int4'].map((d) =>
          post('/api/fit', Object.assign({}, fitDoc, { dtype: d }), ctrl.signal).then((f) => ({ dtype: d, fit: f }))))
      : Promise.resolve([]);
    const plan = post('/api/plan', planScenario(s), ctrl.signal).catch((e) => e);
    const [fitRes, precRes] = await Promise.all([fit, precisions]);
    if (seq !== state.seq) return;
    $('error').hidden = true;
    drawVerdict(fitRes);
    drawPrecisions(precRes);
    state.serve = cmd === 'serve' ? mainDoc : null;
    if (cmd === 'serve') drawServe(mainDoc);
    else drawTrain(mainDoc);
    setStatus('busy', T('busy_plan'));
    const planRes = await plan;
    if (seq !== state.seq) return;
    if (planRes instanceof Error) {
      if (planRes.name === 'AbortError') return;
      $('plan').textContent = /unknown command/.test(planRes.message) ? T('plan_absent') : planRes.message;
    } else drawPlan(planRes);
    if (cmd === 'serve' && typeof s.model === 'string') await drawCompare(s, fitRes, ctrl.signal);
    else $('compare').replaceChildren();
    if (seq !== state.seq) return;
    setStatus('done', T('done'));
  } catch (e) {
    if (e.name === 'AbortError' || seq !== state.seq) return;
    setStatus('error', T('error_prefix') + e.message);
    showError(T('error_prefix') + e.message);
  }
}

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(update, 250);
}

// the board report (HTML, from the library) in either language, for the current question
async function downloadReport(lang) {
  let s;
  try { s = scenario(); } catch (e) { showError(T('error_config') + e.message); return; }
  const p = planScenario(s);
  p.lang = lang;
  p.report_html = true;
  try {
    const doc = await post('/api/plan', p);
    const blob = new Blob([doc.report_html], { type: 'text/html' });
    const a = el('a', { href: URL.createObjectURL(blob), download: 'gpuplan-report-' + lang + '.html' });
    document.body.appendChild(a);
    a.click();
    a.remove();
    $('plan-card').dataset.report = lang;
    $('plan-card').dataset.reportBytes = String(doc.report_html.length);
    setStatus('done', T('report_ready'));
  } catch (e) {
    showError(T('error_prefix') + e.message);
  }
}

async function init() {
  for (const k of FIELDS) $(k).dataset.initial = $(k).value; // the page's defaults stay out of the URL
  loadURL();
  translate();
  let models, gpus;
  try {
    [models, gpus] = await Promise.all([fetch('/api/models').then((r) => r.json()), fetch('/api/gpus').then((r) => r.json())]);
  } catch (e) {
    setStatus('error', T('error_catalog') + e.message);
    showError(T('error_catalog') + e.message);
    return;
  }
  state.models = models.models;
  state.gpus = gpus.gpus;
  const dl = $('models');
  for (const m of models.models) dl.appendChild(el('option', { value: m.id }, m.name));
  const sel = $('gpu');
  const asked = new URLSearchParams(location.search).get('gpu') || '';
  for (const g of gpus.gpus) {
    // the size as sold (GB as marketed) and as the device reports it, so the verdict's GB agree
    const o = el('option', { value: g.id }, g.id + ' (' + nf(g.memory_bytes / 1e9, 1) + ' GB)');
    sel.appendChild(o);
  }
  sel.value = asked;
  const info = () => {
    const m = state.models.find((x) => x.id === $('model').value.trim().toLowerCase() ||
                                     x.name.toLowerCase() === $('model').value.trim().toLowerCase());
    $('model-info').textContent = m ? m.name + ': ' + nf(m.params_total / 1e9, 1) + ' B' : '';
  };
  $('model').addEventListener('input', info);
  info();
  $('form').addEventListener('input', schedule);
  $('form').addEventListener('change', schedule);
  $('form').addEventListener('submit', (e) => { e.preventDefault(); update(); });
  $('lang').addEventListener('click', () => {
    state.lang = pt() ? 'en' : 'pt-BR';
    translate();
    update();
  });
  $('report-en').addEventListener('click', () => downloadReport('en'));
  $('report-pt').addEventListener('click', () => downloadReport('pt-BR'));
  update();
}

document.addEventListener('DOMContentLoaded', () => { init(); });
