// app.js: the gpuplan page. Reads the form, POSTs scenario documents to the local API
// (/api/fit, /api/serve or /api/train, /api/plan), and draws what comes back. Every figure
// shown carries its raw value in data-value, so tests compare it with the CLI's --json.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { seq: 0, timer: null, abort: null, models: [] };

// ---- formatting ------------------------------------------------------------------------------
const fmtGB = (b) => (b / 1e9).toFixed(1) + ' GB';
const fmtS = (s) => (s >= 1 ? s.toFixed(2) + ' s' : (s * 1000).toFixed(1) + ' ms');
const fmtUSD = (x) => '$' + x.toFixed(2);
const fmtNum = (x) => x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(2);
function fmtDuration(s) {
  if (!isFinite(s) || s <= 0) return '–';
  if (s < 3600) return (s / 60).toFixed(1) + ' min';
  if (s < 86400 * 2) return (s / 3600).toFixed(1) + ' h';
  return (s / 86400).toFixed(1) + ' days';
}
function setFig(id, text, value) {
  const el = $(id);
  el.textContent = text;
  if (value === undefined || value === null) el.removeAttribute('data-value');
  else el.dataset.value = String(value);
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

// ---- the scenario ----------------------------------------------------------------------------
function num(id) {
  const v = $(id).value.trim();
  if (v === '') return undefined;
  const n = Number(v);
  return isFinite(n) ? n : undefined;
}
function inlineConfig() {
  const t = $('config').value.trim();
  if (!t) return undefined;
  return JSON.parse(t); // a syntax error is shown as the status
}
function scenario() {
  const task = $('task').value;
  const s = {};
  const cfg = inlineConfig();
  s.model = cfg !== undefined ? cfg : $('model').value.trim();
  if (task !== 'infer') s.task = task;
  if ($('dtype').value) s.dtype = $('dtype').value;
  s.gpu = $('gpu').value;
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
// the fit question for an inference scenario: one sequence of prompt + output tokens
function fitScenario(s) {
  const f = { model: s.model, gpu: s.gpu };
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
    li.appendChild(document.createTextNode(k.replace('_', ' ') + ' ' + fmtGB(b)));
    li.dataset.component = k;
    li.dataset.value = String(b);
    legend.appendChild(li);
  });
  const cap = el('span', { class: 'cap', title: 'capacity ' + fmtGB(mem.capacity_bytes) });
  cap.style.left = (100 * mem.capacity_bytes / top) + '%';
  bar.appendChild(cap);
  const li = el('li', {}, 'total ' + fmtGB(mem.per_gpu_bytes) + ' of ' + fmtGB(mem.capacity_bytes) + ' (|)');
  li.dataset.component = 'per_gpu';
  li.dataset.value = String(mem.per_gpu_bytes);
  legend.appendChild(li);
}

function drawVerdict(fit) {
  const v = fit.verdict, p = $('verdict');
  let text;
  if (v.single_gpu_sufficient) text = 'One ' + fit.gpu + ' is enough.';
  else if (v.fits) text = 'One GPU is not enough: at least ' + v.min_gpus + ' × ' + fit.gpu + '.';
  else text = 'No layout of ' + fit.gpu + ' holds it.';
  p.textContent = text;
  p.className = 'verdict ' + (v.fits ? 'ok' : 'bad');
  p.dataset.fits = String(v.fits);
  p.dataset.singleGpu = String(v.single_gpu_sufficient);
  p.dataset.minGpus = String(v.min_gpus);
  const ul = $('reasons');
  ul.replaceChildren();
  for (const r of v.reasons) ul.appendChild(el('li', { 'data-code': r.code }, r.message));
  const rec = fit.recommended;
  if (rec) drawMemory(rec.memory, '(' + rec.layout.gpus + ' × ' + fit.gpu + ', TP ' + rec.layout.tp + ', PP ' + rec.layout.pp + ')');
  else drawMemory(fit.memory, '(as asked; does not fit)');
}

function rankedOptions(serve) {
  return serve.options.slice().sort((a, b) =>
    (b.meets - a.meets) || (a.usd_per_hour - b.usd_per_hour) || (a.gpus_total - b.gpus_total));
}

function drawServe(serve) {
  const l = serve.layout, p = serve.perf;
  const gpus = serve.found ? l.gpus_total : 0;
  setFig('serve-gpus', serve.found ? gpus + ' × ' + serve.gpu : 'none found', gpus);
  setFig('serve-layout', serve.found ? 'TP ' + l.tp + ' × ' + l.replicas + ' replica' + (l.replicas === 1 ? '' : 's') : '–', l.tp + 'x' + l.replicas);
  setFig('serve-ttft', fmtS(p.ttft_p99_s), p.ttft_p99_s);
  setFig('serve-tpot', fmtS(p.tpot_p99_s), p.tpot_p99_s);
  setFig('serve-throughput', fmtNum(p.throughput_tokens_per_s) + ' tok/s', p.throughput_tokens_per_s);
  setFig('serve-slo', serve.slo.met ? 'met' : 'missed', serve.slo.met);
  setFig('serve-cost', fmtUSD(serve.usd_per_hour) + '/h', serve.usd_per_hour);
  setFig('serve-month', fmtUSD(serve.usd_per_hour * 730), serve.usd_per_hour * 730);

  const opts = rankedOptions(serve);
  const tbody = $('options').querySelector('tbody');
  tbody.replaceChildren();
  opts.forEach((o, i) => {
    const tr = el('tr');
    if (serve.found && o.gpu === serve.gpu && o.tp === l.tp && o.replicas === l.replicas) tr.className = 'best';
    for (const t of [i + 1, o.gpu, o.tp, o.replicas, o.gpus_total, fmtUSD(o.usd_per_hour), fmtS(o.ttft_p99_s), fmtS(o.tpot_p99_s)])
      tr.appendChild(el('td', {}, String(t)));
    tr.appendChild(el('td', { class: o.meets ? 'yes' : 'no' }, o.meets ? 'yes' : 'no'));
    tbody.appendChild(tr);
  });
  drawChart(opts.slice(0, 12));

  const hf = (state.models.find((m) => m.id === serve.model) || {}).name || serve.model;
  const ctx = (num('prompt_tokens') || 1000) + (num('output_tokens') || 200);
  $('launch').textContent = serve.found
    ? '# ' + l.replicas + ' replica' + (l.replicas === 1 ? '' : 's') + ' of ' + l.tp + ' × ' + serve.gpu + ', each:\n' +
      'vllm serve ' + hf + ' --tensor-parallel-size ' + l.tp + ' --max-model-len ' + ctx +
      ' --gpu-memory-utilization 0.9' + ($('dtype').value === 'fp8' ? ' --quantization fp8' : '')
    : 'no setup meets the targets';
}

function drawChart(opts) {
  const box = $('chart');
  box.replaceChildren();
  if (!opts.length) return;
  const W = 600, rowH = 20, left = 190, H = opts.length * rowH + 24;
  const max = Math.max(...opts.map((o) => o.usd_per_hour)) || 1;
  const s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'cost per hour of each option' });
  s.appendChild(svg('text', { x: left, y: 12 }, '$/hour (blue: meets the targets)'));
  opts.forEach((o, i) => {
    const y = 20 + i * rowH, w = Math.max(1, (W - left - 70) * o.usd_per_hour / max);
    s.appendChild(svg('text', { x: left - 6, y: y + 13, 'text-anchor': 'end' }, o.gpu + ' TP' + o.tp + ' ×' + o.replicas));
    s.appendChild(svg('rect', { x: left, y: y + 2, width: w, height: rowH - 6, class: o.meets ? 'bar-ok' : 'bar-no' }));
    s.appendChild(svg('text', { x: left + w + 4, y: y + 13 }, fmtUSD(o.usd_per_hour)));
  });
  box.appendChild(s);
}

function drawTrain(t) {
  const l = t.layout, p = t.perf;
  setFig('train-layout', 'TP ' + l.tp + ' PP ' + l.pp + ' DP ' + l.dp + (l.zero ? ' ZeRO-' + l.zero : ''), l.gpus);
  setFig('train-step', fmtS(p.step_time_s), p.step_time_s);
  setFig('train-tps', fmtNum(p.tokens_per_s), p.tokens_per_s);
  setFig('train-mfu', (100 * p.mfu).toFixed(1) + '%', p.mfu);
  setFig('train-ttt', fmtDuration(p.time_to_train_s), p.time_to_train_s);
  setFig('train-mem', fmtGB(t.memory.per_gpu_bytes), t.memory.per_gpu_bytes);
  $('launch').textContent = 'gpuplan export (see docs) for DeepSpeed / torchrun commands of this layout';
}

function drawPlan(plan) {
  const box = $('plan');
  box.replaceChildren();
  const opts = plan.options || [];
  if (!opts.length) { box.textContent = 'no option meets the question (' + (plan.excluded || []).length + ' excluded)'; return; }
  const cur = plan.currency || 'USD';
  const money = (x) => (typeof x === 'number' ? fmtNum(x) + ' ' + cur : '–');
  const t = el('table', { id: 'plan-options' });
  const head = el('tr');
  for (const h of ['#', 'GPUs', 'where', 'per month', 'over ' + (plan.horizon_months || '') + ' months', 'per 1M tokens', 'compliance'])
    head.appendChild(el('th', {}, h));
  t.appendChild(el('thead')).appendChild(head);
  const tb = t.appendChild(el('tbody'));
  opts.slice(0, 10).forEach((o, i) => {
    const tr = el('tr');
    const hw = o.hardware || {}, c = o.cost || {}, comp = o.compliance || {};
    if (i === 0) tr.className = 'best';
    const cells = [o.rank || i + 1, (hw.gpus_total || '') + ' × ' + (hw.gpu || ''),
      hw.deployment ? hw.deployment.name : '', money(c.monthly), money(c.total), money(c.per_million_tokens),
      comp.allowed === false ? 'no: ' + (comp.violated || []).map((v) => v.rule || v.id || v).join(', ') : 'allowed'];
    cells.forEach((x, k) => {
      const td = el('td', {}, String(x));
      if (k === 3 && typeof c.monthly === 'number') td.dataset.value = String(c.monthly);
      tr.appendChild(td);
    });
    tb.appendChild(tr);
  });
  box.appendChild(t);
  if (plan.excluded && plan.excluded.length) {
    // each rule that excluded options, how many, and its citation (guidance, not legal advice)
    const byRule = new Map();
    for (const x of plan.excluded) {
      const r = byRule.get(x.rule) || { n: 0, citation: x.citation || '' };
      r.n++;
      byRule.set(x.rule, r);
    }
    const ul = el('ul', { id: 'plan-excluded' });
    for (const [rule, r] of byRule)
      ul.appendChild(el('li', { 'data-rule': rule }, rule + ': ' + r.n + ' option(s) excluded. ' + r.citation));
    box.appendChild(el('p', { class: 'hint' }, plan.excluded.length + ' option(s) excluded by the data rules (guidance, not legal advice):'));
    box.appendChild(ul);
  }
}

// ---- the update loop -------------------------------------------------------------------------
function setStatus(stateName, text) {
  const s = $('status');
  s.dataset.state = stateName;
  s.textContent = text;
}

async function update() {
  const seq = ++state.seq;
  if (state.abort) state.abort.abort();
  const ctrl = new AbortController();
  state.abort = ctrl;
  document.body.className = 'task-' + ($('task').value === 'infer' ? 'infer' : 'train');
  let s;
  try {
    s = scenario();
  } catch (e) {
    setStatus('error', 'config.json: ' + e.message);
    return;
  }
  $('scenario').textContent = JSON.stringify(s, null, 2);
  const cmd = s.task ? 'train' : 'serve';
  $('cli').textContent = cliLine(cmd, s);
  setStatus('busy', 'computing…');
  const fitDoc = fitScenario(s);
  try {
    const main = post('/api/' + cmd, s, ctrl.signal);
    const fit = post('/api/fit', fitDoc, ctrl.signal);
    const plan = post('/api/plan', planScenario(s), ctrl.signal).catch((e) => e);
    const [mainDoc, fitRes] = await Promise.all([main, fit]);
    if (seq !== state.seq) return;
    drawVerdict(fitRes);
    if (cmd === 'serve') drawServe(mainDoc);
    else drawTrain(mainDoc);
    const planRes = await plan;
    if (seq !== state.seq) return;
    if (planRes instanceof Error) $('plan').textContent = /unknown command/.test(planRes.message) ? 'plan: not in this build of gpuplan' : 'plan: ' + planRes.message;
    else drawPlan(planRes);
    setStatus('done', 'up to date');
  } catch (e) {
    if (e.name === 'AbortError' || seq !== state.seq) return;
    setStatus('error', e.message);
  }
}

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(update, 250);
}

async function init() {
  const [models, gpus] = await Promise.all([fetch('/api/models').then((r) => r.json()),
                                            fetch('/api/gpus').then((r) => r.json())]);
  state.models = models.models;
  const dl = $('models');
  for (const m of models.models) {
    dl.appendChild(el('option', { value: m.id }, m.name));
  }
  const sel = $('gpu');
  for (const g of gpus.gpus) {
    const o = el('option', { value: g.id }, g.id + ' (' + (g.memory_marketed_gb || Math.round(g.memory_bytes / 1e9)) + ' GB)');
    if (g.id === 'H100-SXM-80GB') o.selected = true;
    sel.appendChild(o);
  }
  const info = () => {
    const m = state.models.find((x) => x.id === $('model').value.trim().toLowerCase() ||
                                     x.name.toLowerCase() === $('model').value.trim().toLowerCase());
    $('model-info').textContent = m ? m.name + ': ' + (m.params_total / 1e9).toFixed(1) + ' B parameters' : '';
  };
  $('model').addEventListener('input', info);
  info();
  $('form').addEventListener('input', schedule);
  $('form').addEventListener('change', schedule);
  $('form').addEventListener('submit', (e) => { e.preventDefault(); update(); });
  update();
}

document.addEventListener('DOMContentLoaded', () => {
  init().catch((e) => setStatus('error', 'could not load the catalog: ' + e.message));
});
