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
  const seen = {};
  for (const r of v.reasons) {
    const again = seen[r.code] = (seen[r.code] || 0) + 1;
    ul.appendChild(el('li', { 'data-code': r.code }, pt() ? reasonPt(fit, r, again > 1) : r.message));
  }
  const rec = fit.recommended;
  if (rec) drawMemory(rec.memory, '(' + rec.layout.gpus + ' × ' + fit.gpu + ', TP ' + rec.layout.tp + ', PP ' + rec.layout.pp + ')');
  else drawMemory(fit.memory, '');
}

// The verdict's reasons in Portuguese, from the figures of the same answer (the library
// writes them in English); a code seen twice is the "N GPUs hold it" line.
function reasonPt(fit, r, second) {
  const v = fit.verdict, m = fit.memory, g = fit.gpu, c = m.components || {};
  const cap = fmtGB(m.capacity_bytes), rec = fit.recommended;
  const gpuInfo = state.gpus.find((x) => x.id === g) || {};
  if (second && rec)
    return v.min_gpus + ' × ' + g + ' (TP ' + rec.layout.tp + ' × PP ' + rec.layout.pp + ') comportam: ' +
           fmtGB(rec.memory.per_gpu_bytes) + ' por GPU de ' + cap + '.';
  switch (r.code) {
    case 'fits': return 'Uma ' + g + ' comporta: ' + fmtGB(m.per_gpu_bytes) + ' necessários de ' + cap + ', ' + fmtGB(m.headroom_bytes) + ' livres.';
    case 'weights_exceed_vram': return 'Só os pesos têm ' + fmtGB(c.weights || 0) + '; uma ' + g + ' tem ' + cap + ', então o modelo precisa ser dividido entre várias GPUs.';
    case 'kv_cache_exceeds_vram': return 'Os pesos cabem (' + fmtGB(c.weights || 0) + ' de ' + cap + '), mas o cache KV (' + fmtGB(c.kv_cache || 0) + ') não cabe no que sobra.';
    case 'training_state_exceeds_vram': return 'Pesos, gradientes e estados do otimizador precisam de ' + fmtGB((c.weights || 0) + (c.gradients || 0) + (c.optimizer || 0)) + '; uma ' + g + ' tem ' + cap + '.';
    case 'activations_exceed_vram': return 'O modelo cabe, mas as ativações (' + fmtGB(c.activations || 0) + ') não.';
    case 'larger_gpu_fits': return 'Uma GPU maior comporta sozinha: ' + v.larger_gpus.slice(0, 4).map((x) => x.gpu + ' (' + fmtGB(x.capacity_bytes) + ')').join(', ') +
      '. Uma única GPU dispensa sincronização entre GPUs; costuma ser mais rápida e mais simples que várias menores.';
    case 'no_layout_fits': return 'Nenhuma divisão de até 16.384 ' + g + ' comporta este trabalho como pedido: reduza o contexto, o lote ou a precisão, ou ative recomputação/offload.';
    case 'invalid_layout': return 'A divisão pedida não funciona: o paralelismo de tensor precisa dividir as ' + ((r.message.match(/(\d+) attention heads/) || [])[1] || '') + ' cabeças de atenção do modelo (' + ((r.message.match(/Use TP ([\d, ]+)/) || [])[1] || '1, 2, 4, 8') + ').';
    case 'context_above_model_max': return 'Aviso: o contexto pedido é maior que o máximo do modelo; os engines recusam sequências mais longas (vLLM: max_model_len acima de max_position_embeddings).';
    case 'lower_precision_fits': return 'Com pesos de 8 bits uma ' + g + ' comporta: ' + (v.lower_precisions_fit_one_gpu || []).map((x) => x.dtype + ' (' + fmtGB(x.per_gpu_bytes) + ' de ' + cap + ')').join(', ') +
      '. Pesos de 8 bits mudam pouco as respostas e todos os perfis de dados do gpuplan os aceitam; confira a qualidade na sua tarefa.';
    case 'units': return 'Tamanhos em GB de 10^9 bytes. A ' + g + ' é vendida como ' + (gpuInfo.memory_marketed_gb || '?') + ' GB (na verdade GiB, 2^30 bytes); o dispositivo informa ' +
      cap + ' (' + nf(m.capacity_bytes / 1073741824, 1) + ' GiB), o valor usado aqui.';
    default: return r.message;
  }
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
  for (const id of ['reasons', 'memory-legend', 'memory-bar', 'chart', 'decision']) $(id).replaceChildren();
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
