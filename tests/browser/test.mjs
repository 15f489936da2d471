// test.mjs: the web page in a real browser. Starts `gpuplan web` on a free loopback port,
// opens the page in the system's headless Chromium (Debian package; playwright-core drives it,
// no browser is downloaded) and walks the journeys of issue 16 at desktop width and at phone
// width (390 px), in English and in Brazilian Portuguese (the browser's Accept-Language):
//  1. any GPU: Llama-3.1-8B for 300 users gives the same cheapest setup as `gpuplan serve`
//     without --gpu, and the plan's rows are `gpuplan plan`'s;
//  2. health data in Brazil, in BRL: the plan, its break-even and every card in reais;
//  3. one GPU or several: Llama-3.1-70B on an H100, the verdict and the precision table;
//  4. training: cost per run, not months of rent;
//  5. an error replaces the stale results; the URL holds the state; the report downloads;
//  6. one GPU vs two smaller ones, NVLink vs PCIe, and the throughput-vs-latency chart.
// Saves screenshots of the page and of the report. Usage: node test.mjs GPUPLAN_BINARY OUT_DIR
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [gp, outDir] = process.argv.slice(2);
if (!gp || !outDir) {
  console.error('usage: node test.mjs GPUPLAN_BINARY OUT_DIR');
  process.exit(2);
}
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.log('FAIL: ' + what); }
}

function startServer() {
  return new Promise((resolve, reject) => {
    const p = spawn(gp, ['web', '--port', '0', '--bind', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start: ' + out)), 15000);
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/serving (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: m[1] }); }
    });
    p.on('exit', (code) => reject(new Error('server exited ' + code + ': ' + out)));
  });
}

function cliArgs(cmd, scenario) {
  const args = [cmd];
  for (const [k, v] of Object.entries(scenario)) {
    const flag = '--' + k.replace(/_/g, '-');
    if (v === true) args.push(flag);
    else args.push(flag + '=' + v);
  }
  return [...args, '--json'];
}
const cli = (cmd, scenario) => JSON.parse(execFileSync(gp, cliArgs(cmd, scenario), { encoding: 'utf8', maxBuffer: 1 << 26 }));

// page.waitForFunction evaluates a string, which the page's Content-Security-Policy (no
// 'unsafe-eval') refuses in playwright-core 1.49: poll with page.evaluate instead.
async function waitFor(page, fn, arg, timeout) {
  const end = Date.now() + (timeout || 60000);
  for (;;) {
    if (await page.evaluate(fn, arg)) return;
    if (Date.now() > end) throw new Error('timed out waiting for ' + String(fn).slice(0, 120));
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Wait until the page has answered a scenario with `want`'s keys and values ('object': any
// object; undefined: absent) and its plan (status done or error).
async function settled(page, want) {
  await waitFor(page, (w) => {
    const st = document.getElementById('status').dataset.state;
    if (st !== 'done' && st !== 'error') return false;
    let s;
    try { s = JSON.parse(document.getElementById('scenario').textContent); } catch { return false; }
    return Object.entries(w).every(([k, v]) => (v === 'object' ? typeof s[k] === 'object' : v === null ? !(k in s) : s[k] === v));
  }, want, 60000);
}
const scenarioOf = async (page) => JSON.parse(await page.locator('#scenario').textContent());
const fig = (page, id) => page.locator('#' + id).getAttribute('data-value');

// ---- journeys ------------------------------------------------------------------------------
async function anyGpu(page, tag, lang) {
  await page.fill('#model', 'llama-3.1-8b');
  await page.fill('#users', '300');
  await page.selectOption('#gpu', '');
  await page.selectOption('#currency', '');
  await page.selectOption('#compliance', '');
  await settled(page, { model: 'llama-3.1-8b', users: 300, gpu: null });
  check(await page.locator('#status').getAttribute('data-state') === 'done', tag + ': computed: ' + await page.locator('#status').textContent());
  const sc = await scenarioOf(page);
  const serve = cli('serve', sc);
  check(serve.found, tag + ': CLI finds a setup');
  check(await fig(page, 'serve-gpus') === String(serve.layout.gpus_total), tag + ': any GPU: GPUs = serve without --gpu (' + serve.layout.gpus_total + ')');
  check((await page.locator('#serve-gpus').textContent()).includes(serve.gpu), tag + ': any GPU: the GPU is serve\'s (' + serve.gpu + ')');
  check(await fig(page, 'serve-cost') === String(serve.usd_per_hour), tag + ': price per hour = CLI');
  check(await fig(page, 'serve-layout') === serve.layout.tp + 'x' + serve.layout.replicas, tag + ': TP x replicas = CLI');
  check(await fig(page, 'serve-ttft') === String(serve.perf.ttft_p99_s), tag + ': TTFT p99 = CLI');
  check(await page.locator('#options tbody tr').count() === serve.options.length, tag + ': one row per CLI option');
  const noPrice = serve.options.filter((o) => !o.usd_per_hour).length;
  const shownNoPrice = await page.locator('#options tbody td', { hasText: lang === 'pt-BR' ? 'sem preço' : 'no price' }).count();
  check(shownNoPrice === noPrice, tag + ': GPUs without a price say so (' + noPrice + '), never $0.00');
  check(!(await page.locator('#options').textContent()).includes('0.00/h'), tag + ': no $0.00/h');
  const plan = cli('plan', Object.assign({}, sc, lang === 'pt-BR' ? { lang: 'pt-BR' } : {}));
  check(await page.locator('#plan-options tbody tr').count() === Math.min(10, plan.options.length), tag + ': plan rows = CLI');
  check(await page.locator('#plan-options tbody tr:first-child td:nth-child(4)').getAttribute('data-value') ===
        String(plan.options[0].cost.monthly), tag + ': plan monthly = CLI');
  const rec = plan.recommended.hardware;
  check((await page.locator('#plan-options tbody tr:first-child td:nth-child(2)').textContent()).startsWith(rec.gpus_total + ' × ' + rec.gpu),
        tag + ': plan\'s recommendation = CLI (' + rec.gpus_total + ' x ' + rec.gpu + ')');
  check(await page.locator('[data-testid=decision]').count() === 1, tag + ': the decision in plain words');
  await comparisons(page, tag, lang, sc, serve);
  return sc;
}

// The comparisons for the chosen model (one GPU or two smaller ones; NVLink or PCIe) and the
// throughput-vs-latency chart: each side's GPUs against `gpuplan serve --gpu X --tp N` for the
// same scenario, each point against the CLI's option, the sentence in the page's language.
async function comparisons(page, tag, lang, sc, serve) {
  for (const id of ['one-vs-two', 'nvlink-vs-pcie']) {
    const rows = page.locator('#' + id + ' tbody tr');
    const n = await rows.count();
    if (id === 'nvlink-vs-pcie') check(n === 2, tag + ': NVLink vs PCIe side by side');
    for (let i = 0; i < n; i++) {
      const r = rows.nth(i);
      const gpu = await r.getAttribute('data-gpu'), tp = Number(await r.getAttribute('data-tp'));
      const want = cli('serve', Object.assign({}, sc, { gpu, tp }));
      const shown = await r.locator('td:nth-child(2)').getAttribute('data-value');
      check(shown === String(want.found ? want.layout.gpus_total : 0), tag + ': ' + id + ' ' + gpu + ' TP' + tp + ' GPUs = CLI (' + want.layout.gpus_total + ')');
      if (want.found)
        check(await r.locator('td:nth-child(6)').getAttribute('data-value') === String(want.usd_per_hour), tag + ': ' + id + ' ' + gpu + ' per hour = CLI');
    }
    if (n) {
      const why = await page.locator('[data-testid=' + id + '-why]').textContent();
      check(lang === 'pt-BR' ? /vence|cumpre|custam o mesmo/.test(why) : /wins|meets|cost the same/.test(why), tag + ': ' + id + ' says why, in ' + lang + ' (' + why.slice(0, 50) + ')');
    }
  }
  const tp2 = page.locator('#one-vs-two tr[data-side=two]');
  if (await tp2.count()) check(await tp2.getAttribute('data-tp') === '2', tag + ': two GPUs per replica (TP 2)');
  // the chart: one point per option with a throughput, the chosen one where the CLI puts it
  const opts = serve.options.filter((o) => o.per_replica_throughput_tokens_per_s > 0 && o.tpot_p99_s > 0);
  check(await page.locator('#tradeoff-svg circle').count() === opts.length, tag + ': one chart point per serving option (' + opts.length + ')');
  const best = page.locator('#tradeoff-svg circle.pt-best');
  check(await best.count() === 1, tag + ': the chosen setup is marked on the chart');
  const o = serve.options.find((x) => x.gpu === serve.gpu && x.tp === serve.layout.tp && x.replicas === serve.layout.replicas);
  if (o && await best.count())
    check(await best.getAttribute('data-y') === String(o.per_replica_throughput_tokens_per_s / (o.gpus_per_replica || o.tp)),
          tag + ': the chosen point\'s tokens/s per GPU = CLI');
  const box = await page.locator('#tradeoff-svg').boundingBox();
  check(box && box.width <= (await page.evaluate(() => window.innerWidth)), tag + ': the chart fits the screen (' + (box && box.width) + ' px)');
}

async function health(page, tag, lang) {
  await page.fill('#model', 'llama-3.1-70b');
  await page.fill('#users', '300');
  await page.selectOption('#gpu', '');
  await page.selectOption('#currency', 'BRL');
  await page.selectOption('#compliance', 'health');
  await settled(page, { model: 'llama-3.1-70b', gpu: null });
  await waitFor(page, () => document.getElementById('status').dataset.state === 'done' &&
                                   document.getElementById('plan-excluded') !== null, null, 60000);
  const sc = await scenarioOf(page);
  const plan = cli('plan', Object.assign({}, sc, { currency: 'BRL', compliance: 'health' }));
  check(await page.locator('#plan-options tbody tr').count() === Math.min(10, plan.options.length), tag + ': health/BRL rows = CLI');
  check(await page.locator('#plan-options tbody tr:first-child td:nth-child(4)').getAttribute('data-value') ===
        String(plan.options[0].cost.monthly), tag + ': health/BRL monthly = CLI');
  const rules = [...new Set(plan.excluded.map((x) => x.rule))].sort();
  const shown = (await page.locator('#plan-excluded li').evaluateAll((ls) => ls.map((l) => l.dataset.rule))).sort();
  check(JSON.stringify(shown) === JSON.stringify(rules), tag + ': excluding rules = CLI (' + rules.join(', ') + ')');
  const be = plan.recommended.cost.break_even_month;
  if (be) check(await page.locator('[data-break-even]').getAttribute('data-break-even') === String(be), tag + ': break-even month = CLI (' + be + ')');
  // one currency everywhere: the serving card too
  const cost = await page.locator('#serve-cost').textContent();
  check(/R\$|BRL/.test(cost), tag + ': the serving card is in reais too (' + cost + ')');
  const spares = (plan.recommended.reliability || {}).spare_replicas || 0;
  check(await fig(page, 'serve-spares') === String(spares), tag + ': the spare the plan adds is shown (' + spares + ')');
  if (lang === 'pt-BR') {
    const txt = await page.locator('#plan-card').textContent();
    check(/R\$ \d{1,3}(\.\d{3})+/.test(txt), tag + ': money as R$ 1.234.567');
    check(!/BRL \d/.test(txt), tag + ': no "BRL 3..." in Portuguese');
  }
}

async function oneOrSeveral(page, tag, lang) {
  await page.fill('#model', 'llama-3.1-70b');
  await page.selectOption('#currency', '');
  await page.selectOption('#compliance', '');
  await page.selectOption('#gpu', 'H100-SXM-80GB');
  await settled(page, { model: 'llama-3.1-70b', gpu: 'H100-SXM-80GB' });
  const sc = await scenarioOf(page);
  const ctx = sc.prompt_tokens + sc.output_tokens;
  const fit = cli('fit', { model: sc.model, gpu: sc.gpu, context: ctx });
  const v = page.locator('#verdict');
  check(await v.getAttribute('data-fits') === String(fit.verdict.fits), tag + ': verdict fits = CLI (' + fit.verdict.fits + ')');
  check(await v.getAttribute('data-single-gpu') === String(fit.verdict.single_gpu_sufficient), tag + ': single GPU = CLI');
  check(await v.getAttribute('data-min-gpus') === String(fit.verdict.min_gpus), tag + ': min GPUs = CLI');
  check(!(await v.getAttribute('class')).includes('ok') || fit.verdict.single_gpu_sufficient, tag + ': "not enough" is not green');
  check(await page.locator('#reasons li').count() === fit.verdict.reasons.length, tag + ': one line per reason');
  // the reasons are the library's sentences in the page's language (gpuplan fit --lang)
  const fitLang = cli('fit', { model: sc.model, gpu: sc.gpu, context: ctx, lang });
  const shownReasons = await page.locator('#reasons li').allTextContents();
  check(JSON.stringify(shownReasons) === JSON.stringify(fitLang.verdict.reasons.map((r) => r.message)),
        tag + ': the reasons = gpuplan fit --lang ' + lang);
  if (lang === 'pt-BR') {
    const first = await page.locator('#reasons li').first().textContent();
    check(/^Só os pesos têm 141,1 GB/.test(first), tag + ': the reasons in Portuguese (' + first.slice(0, 60) + ')');
    check(await page.locator('#reasons li[data-code=units]', { hasText: 'GiB' }).count() === 1, tag + ': GB vs GiB explained once');
  }
  await comparisons(page, tag, lang, sc, cli('serve', sc));
  check(await page.locator('#one-vs-two tr[data-side=two]').getAttribute('data-gpu') === 'H100-SXM-80GB', tag + ': two H100s against one larger GPU');
  for (const d of ['bf16', 'fp8', 'int8', 'int4']) {
    const f = cli('fit', { model: sc.model, gpu: sc.gpu, context: ctx, dtype: d });
    const row = page.locator('#precisions tr[data-dtype=' + d + '] td:nth-child(4)');
    check(await row.getAttribute('data-value') === String(f.verdict.min_gpus), tag + ': ' + d + ' needs ' + f.verdict.min_gpus + ' GPU(s) = CLI');
  }
}

async function training(page, tag) {
  await page.fill('#model', 'llama-3.1-8b');
  await page.selectOption('#task', 'train');
  await page.selectOption('#gpu', 'H100-SXM-80GB');
  await page.fill('#gpus', '8');
  await page.fill('#tokens', '1e9');
  await settled(page, { task: 'train', model: 'llama-3.1-8b', gpu: 'H100-SXM-80GB' });
  await waitFor(page, () => document.getElementById('status').dataset.state === 'done', null, 60000);
  const sc = await scenarioOf(page);
  const plan = cli('plan', sc);
  const run = plan.recommended.cost.per_run;
  check(await fig(page, 'train-run') === String(run), tag + ': cost per run = CLI plan (' + run + ')');
  check(run < plan.recommended.cost.total, tag + ': a run costs less than the horizon');
  await page.selectOption('#task', 'infer');
}

async function errors(page, tag) {
  await page.fill('#model', 'no-such-model');
  await waitFor(page, () => document.getElementById('status').dataset.state === 'error', null, 30000);
  check(!(await page.locator('#error').isHidden()), tag + ': the error is shown');
  check((await page.locator('#serve-gpus').textContent()) === '–', tag + ': stale results are cleared');
  await page.fill('#model', 'llama-3.1-8b');
  await waitFor(page, () => document.getElementById('status').dataset.state === 'done', null, 60000);
  check(await page.locator('#error').isHidden(), tag + ': the error goes away with a good answer');
}

// ---- run -----------------------------------------------------------------------------------
mkdirSync(outDir, { recursive: true });
const { proc, url } = await startServer();
const profiles = [];
try {
  for (const lang of ['en', 'pt-BR']) {
    for (const [w, h, kind] of [[1400, 1000, 'desktop'], [390, 844, 'phone']]) {
      const tag = lang + '/' + kind;
      const profile = mkdtempSync(join(tmpdir(), 'gpuplan-chromium-'));
      profiles.push(profile);
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM, headless: true, viewport: { width: w, height: h }, locale: lang,
        isMobile: kind === 'phone', hasTouch: kind === 'phone', acceptDownloads: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--lang=' + lang,
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        const page = context.pages()[0] || await context.newPage();
        const problems = [];
        page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text()); });
        page.on('pageerror', (e) => problems.push(String(e)));
        await context.route((u) => !u.href.startsWith(url), (r) => { problems.push('external request ' + r.request().url()); r.abort(); });
        await page.goto(url);
        await settled(page, {});
        check(await page.locator('html').getAttribute('lang') === lang, tag + ': the page follows Accept-Language (' + lang + ')');
        check(await page.locator('#gpu').inputValue() === '', tag + ': "any GPU" is the default');
        await anyGpu(page, tag, lang);
        // the URL holds the question: reloading it asks the same
        const here = page.url();
        check(/model=llama-3.1-8b/.test(here), tag + ': state in the URL');
        await page.goto(here);
        await settled(page, { model: 'llama-3.1-8b', users: 300 });
        check(await page.locator('#model').inputValue() === 'llama-3.1-8b', tag + ': the URL restores the form');
        if (kind === 'phone') {
          const wide = await page.evaluate(() => document.documentElement.scrollWidth);
          check(wide <= 390, tag + ': nothing wider than the phone (' + wide + ' px)');
          check(await page.evaluate(() => getComputedStyle(document.getElementById('form')).position) !== 'sticky',
                tag + ': the form does not cover the results');
        }
        await page.screenshot({ path: join(outDir, 'page-' + lang + '-' + kind + '.png'), fullPage: true });
        for (const card of ['compare-card', 'tradeoff-card'])
          await page.locator('#' + card).screenshot({ path: join(outDir, card + '-' + lang + '-' + kind + '.png') });
        if (kind === 'phone') // the plan card alone, legible at phone width
          await page.locator('#plan-card').screenshot({ path: join(outDir, 'plan-card-' + lang + '-phone.png') });
        await health(page, tag, lang);
        if (kind === 'desktop') {
          await page.screenshot({ path: join(outDir, 'page-' + lang + '-health.png'), fullPage: true });
          await oneOrSeveral(page, tag, lang);
          await training(page, tag);
          await errors(page, tag);
          // the board report, downloaded in the page's language, then shown for review
          const want = lang;
          const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }),
                                          page.click(want === 'pt-BR' ? '#report-pt' : '#report-en')]);
          check(/gpuplan-report-/.test(dl.suggestedFilename()), tag + ': report downloaded (' + dl.suggestedFilename() + ')');
          check(await page.locator('#plan-card').getAttribute('data-report') === want, tag + ': report in ' + want);
          const sc = await scenarioOf(page);
          const doc = cli('plan', Object.assign({}, sc, { lang: want, report_html: true }));
          writeFileSync(join(outDir, 'report-' + want + '.html'), doc.report_html);
          const rp = await context.newPage();
          await rp.setContent(doc.report_html);
          await rp.screenshot({ path: join(outDir, 'report-' + want + '.png'), fullPage: true });
          await rp.close();
        }
        check(problems.length === 0, tag + ': no console errors or external requests: ' + problems.join(' | '));
      } finally {
        await context.close();
      }
    }
  }
} finally {
  proc.kill('SIGTERM');
  for (const p of profiles) rmSync(p, { recursive: true, force: true });
}
const code = await new Promise((r) => (proc.exitCode !== null ? r(proc.exitCode) : proc.on('exit', r)));
check(code === 0, 'server stopped cleanly on SIGTERM (exit ' + code + ')');
console.log(`browser: ${checks - failures} passed, ${failures} failed; screenshots in ${outDir}`);
process.exit(failures ? 1 : 0);
