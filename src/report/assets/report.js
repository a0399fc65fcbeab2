// cuco report page: renders the JSON in #cuco-data with D3 (when present). Untrusted text
// (code, logs, reasons) is only ever set with textContent / d3 .text(), never as markup.
(function () {
  'use strict';
  var COLORS = {ok: '#2da44e', wrong_result: '#d1242f', compile_error: '#8250df', timeout: '#bf8700',
    crashed: '#000000', rejected: '#e16f24', runtime_error: '#a40e26', skipped: '#bbbbbb', pending: '#54aeff',
    timed: '#6e7781'};
  var data = JSON.parse(document.getElementById('cuco-data').textContent);
  var hasD3 = typeof window.d3 !== 'undefined';
  var cur = 0, selected = null;
  function el(tag, parent, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v, d) {
    if (v === null || v === undefined) return '-';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v) && d === undefined) return String(v);
    return Math.abs(v) > 0 && Math.abs(v) < 0.001 ? v.toExponential(2) : v.toFixed(d === undefined ? 3 : d);
  }
  function color(s) { return COLORS[s] || '#999'; }
  function run() { return data.runs[cur]; }
  function byId(id) {
    var cs = run().candidates;
    for (var i = 0; i < cs.length; i++) if (cs[i].id === id) return cs[i];
    return null;
  }
  var header = el('header', document.body);
  el('h1', header, 'cuco report');
  var runSel = el('select', header); runSel.id = 'run-select';
  var liveTag = el('span', header, window.CUCO_LIVE ? ' live' : ''); liveTag.id = 'live';
  var main = el('main', document.body);
  var left = el('div', main), right = el('div', main);
  function section(parent, id, title) { var s = el('section', parent); s.id = id; el('h2', s, title); return s; }
  var sMeta = section(left, 'meta', 'Run'), sChart = section(left, 'chart', 'Best so far');
  var sTree = section(left, 'tree', 'Lineage'), sKnobs = section(left, 'knobs', 'Design space: how each knob value fared');
  var sFail = section(right, 'failures', 'Failures'), sDetail = section(right, 'detail', 'Candidate');
  el('p', sDetail, 'Click a node of the lineage or a failure link.');
  var sCompare = section(right, 'compare', 'Runs compared');

  function clear(s) { while (s.childNodes.length > 1) s.removeChild(s.lastChild); }
  function kvTable(parent, rows) {
    var t = el('table', parent, null, 'kv');
    rows.forEach(function (r) { var tr = el('tr', t); el('td', tr, r[0]); el('td', tr, fmt(r[1])); });
    return t;
  }

  function renderMeta() {
    clear(sMeta);
    var m = run().meta, counts = Object.keys(m.counts || {}).map(function (k) { return k + ' ' + m.counts[k]; }).join(', ');
    kvTable(sMeta, [['run dir', m.dir], ['workload', m.seed_workload || m.workload], ['world size', m.seed_world_size],
      ['GPUs', JSON.stringify(m.seed_gpus || [])], ['device', m.seed_device], ['sizes', JSON.stringify(m.seed_sizes || {})],
      ['sandbox', m.seed_sandbox], ['timing method', m.seed_timing_method || '-'], ['candidates', m.candidates + ' (' + counts + ')'],
      ['seed', m.seed_ms === null ? '-' : '#' + m.seed_id + ' ' + fmt(m.seed_ms) + ' ms'],
      ['best', m.best ? '#' + m.best.id + ' ' + fmt(m.best.time_ms) + ' ms' : 'none verified'],
      ['gain re-timed', m.gain_check ? '#' + m.gain_check.best_id + ': ' + m.gain_check.line : 'not re-timed'],
      ['wall time spent', m.wall_s === undefined ? '-' : fmt(m.wall_s, 1) + ' s'], ['LLM cost', m.dollars === undefined ? '-' : '$' + fmt(m.dollars, 4)],
      ['generations', m.generation], ['stopped', m.stop_reason]].concat(m.session ? [
      ['cuco commit', (m.session.cuco_commit || 'unknown') + (m.session.cuco_dirty ? ' (dirty)' : '')],
      ['host', m.session.host], ['GPU names', (m.session.gpu_names || []).join(', ') || 'none'],
      ['driver / CUDA / NCCL', [m.session.driver || '-', m.session.cuda || '-', m.session.nccl || '-'].join(' / ')],
      ['last session', (m.session.time || '') + ': ' + (m.session.command || '')]] : [['session', 'not recorded (a run from before cuco recorded it)']]));
    var lin = m.lineages || [];
    if (lin.length > 1) {  // the run went on after its workload or config changed (--accept-changes)
      var dl = el('details', sMeta); dl.open = true;
      el('summary', dl, 'lineages: ' + lin.length + ' (the workload or the config changed during the run)');
      el('pre', dl, lin.map(function (l) {
        return 'lineage ' + l.lineage + ' from candidate #' + l.from_id +
          ((l.changes || []).length ? ':\n  ' + l.changes.join('\n  ') : '');
      }).join('\n'));
    }
    var d = el('details', sMeta); el('summary', d, 'config'); el('pre', d, m.config || '');
    if (m.meta_summary) { var d2 = el('details', sMeta); el('summary', d2, 'meta-summary (latest advice)'); el('pre', d2, m.meta_summary); }
  }

  var xMode = 'n';
  function renderChart() {
    clear(sChart);
    var tabs = el('div', sChart, null, 'tabs');
    [['n', 'candidate number'], ['wall_s', 'wall-clock (s)']].forEach(function (t) {
      var b = el('button', tabs, t[1], xMode === t[0] ? 'on' : ''); b.onclick = function () { xMode = t[0]; renderChart(); };
    });
    if (!hasD3) return;
    var W = 640, H = 240, M = {l: 60, r: 120, t: 10, b: 30};
    var svg = d3.select(sChart).append('svg').attr('viewBox', '0 0 ' + W + ' ' + H);
    var series = [];
    data.runs.forEach(function (r, ri) {
      r.best_so_far.forEach(function (s) {
        if (s.island === -1 || ri === cur) series.push({label: (data.runs.length > 1 ? r.meta.label + ' ' : '') + (s.island === -1 ? 'all' : 'island ' + s.island),
          pts: s.points, main: s.island === -1, run: ri, end: ri === cur ? run().meta.candidates : r.meta.candidates});
      });
    });
    var all = []; series.forEach(function (s) { all = all.concat(s.pts); });
    var seed = run().meta.seed_ms;
    if (!all.length) { svg.append('text').attr('x', 20).attr('y', 40).text('no verified candidate yet'); return; }
    var xs = all.map(function (p) { return p[xMode]; }), ys = all.map(function (p) { return p.best_ms; });
    data.runs.forEach(function (r) { xs.push(xMode === 'n' ? r.meta.candidates : (r.meta.wall_s || 0)); });
    if (seed !== null && seed !== undefined) ys.push(seed);
    var refs = (data.lines || []).slice();
    if (seed !== null && seed !== undefined) refs.unshift({label: 'seed', ms: seed, seed: true});
    refs.forEach(function (l) { ys.push(l.ms); });
    var x = d3.scaleLinear().domain([0, d3.max(xs) * 1.05 || 1]).range([M.l, W - M.r]);
    var y = d3.scaleLinear().domain([0, d3.max(ys) * 1.1]).range([H - M.b, M.t]);
    svg.append('g').attr('transform', 'translate(0,' + (H - M.b) + ')').call(d3.axisBottom(x).ticks(6));
    svg.append('g').attr('transform', 'translate(' + M.l + ',0)').call(d3.axisLeft(y).ticks(5));
    svg.append('text').attr('x', 4).attr('y', 12).attr('font-size', 10).text('ms');
    var pal = d3.schemeCategory10;
    refs.forEach(function (l) {
      svg.append('line').attr('class', l.seed ? 'seed-line' : 'ref-line').attr('x1', M.l).attr('x2', W - M.r).attr('y1', y(l.ms)).attr('y2', y(l.ms))
        .attr('stroke', l.seed ? '#888' : '#b08800').attr('stroke-dasharray', '4 3');
      svg.append('text').attr('x', W - M.r + 4).attr('y', y(l.ms)).attr('font-size', 10).text(l.label + ' ' + fmt(l.ms));
    });
    series.forEach(function (s, i) {
      var pts = s.pts.map(function (p) { return [x(p[xMode]), y(p.best_ms)]; });
      if (!pts.length) return;
      pts.push([x(d3.max(xs)), pts[pts.length - 1][1]]);
      svg.append('path').attr('class', 'best-line').attr('fill', 'none').attr('stroke', pal[i % 10])
        .attr('stroke-width', s.main ? 2.5 : 1).attr('stroke-dasharray', s.main ? null : '3 2')
        .attr('d', d3.line().curve(d3.curveStepAfter)(pts));
      svg.append('text').attr('x', W - M.r + 4).attr('y', H - M.b - 12 * (series.length - 1 - i)).attr('font-size', 10).attr('fill', pal[i % 10]).text(s.label);
    });
  }

  function renderTree() {
    clear(sTree);
    var lg = el('div', sTree, null, 'legend');
    Object.keys(COLORS).forEach(function (k) { var s = el('span', lg); var i = el('i', s); i.style.background = COLORS[k]; s.appendChild(document.createTextNode(k)); });
    el('div', sTree, 'Node size: speed-up over the seed. Ring colour: island. Dashed: crossover parents; orange arrows: migrations. Drag to pan, wheel to zoom, click a node.');
    if (!hasD3) return;
    // Filters: nodes that do not match are dimmed, not removed (the lineage stays readable).
    var bar = el('div', sTree, 'show: ');
    var fStatus = el('select', bar), fIsland = el('select', bar), fKind = el('select', bar);
    fStatus.id = 'filter-status'; fIsland.id = 'filter-island'; fKind.id = 'filter-kind';
    function options(sel, label, values) { el('option', sel, 'any ' + label).value = ''; values.forEach(function (v) { el('option', sel, v).value = v; }); }
    function uniq(f) { var s = {}; run().lineage.nodes.forEach(function (n) { s[f(n)] = 1; }); return Object.keys(s).sort(); }
    options(fStatus, 'verdict', uniq(function (n) { return n.status; }));
    options(fIsland, 'island', uniq(function (n) { return n.island; }));
    options(fKind, 'mutation', uniq(function (n) { return n.mutation_kind; }));
    function applyFilter() {
      d3.select(sTree).selectAll('circle.node').attr('opacity', function (d) {
        var n = d.data.n;
        var ok = (!fStatus.value || n.status === fStatus.value) && (!fIsland.value || String(n.island) === fIsland.value) &&
                 (!fKind.value || n.mutation_kind === fKind.value);
        return ok ? 1 : 0.08;
      }).classed('dim', function () { return this.getAttribute('opacity') !== '1'; });
    }
    [fStatus, fIsland, fKind].forEach(function (s) { s.onchange = applyFilter; });
    var L = run().lineage, nodes = L.nodes, ids = {};
    nodes.forEach(function (n) { ids[n.id] = true; });
    var rows = [{id: 0, parent: null}].concat(nodes.map(function (n) { return {id: n.id, parent: ids[n.parent] ? n.parent : 0, n: n}; }));
    var root = d3.stratify().id(function (d) { return d.id; }).parentId(function (d) { return d.parent; })(rows);
    var svg = d3.select(sTree).append('svg'), g = svg.append('g');
    var W = svg.node().clientWidth || 800, H = svg.node().clientHeight || 460;
    // Generations are spaced so that the whole tree, fitted into the view, fills its width as well as
    // its height: a run of thousands of candidates is a wide band to zoom into, not a thin strip.
    var dx = 14, dy = Math.max(60, Math.min(1200, (W / H) * root.leaves().length * dx / Math.max(1, root.height)));
    d3.tree().nodeSize([dx, dy])(root);
    var pos = {}; root.descendants().forEach(function (d) { pos[d.data.id] = d; });
    // Nodes keep at least 3 px on screen at any zoom (radius in layout units grows as the view shrinks).
    function radius(d) { var t = d.data.n.time_ms, s = run().meta.seed_ms; return t && s ? Math.max(3, Math.min(9, 5 * Math.sqrt(s / t))) : 4; }
    var zoom = d3.zoom().scaleExtent([0.0005, 8]).on('zoom', function () {
      var t = d3.event.transform;
      g.attr('transform', t);
      g.selectAll('circle.node').attr('r', function (d) { return Math.max(radius(d), 3 / t.k); });
    });
    svg.call(zoom);
    // Fit the whole tree into the view; zoom in from there.
    var ex = d3.extent(root.descendants(), function (d) { return d.x; }), ey = d3.extent(root.descendants(), function (d) { return d.y; });
    var k = Math.min(1.5, (W - 40) / Math.max(1, ey[1] - ey[0]), (H - 20) / Math.max(1, ex[1] - ex[0]));
    svg.call(zoom.transform, d3.zoomIdentity.translate(20 - k * ey[0], H / 2 - k * (ex[0] + ex[1]) / 2).scale(k));
    var isl = d3.schemeTableau10;
    g.selectAll('path.link').data(root.links().filter(function (l) { return l.source.data.id !== 0; })).enter().append('path')
      .attr('class', 'link').attr('fill', 'none').attr('stroke', '#bbb').attr('vector-effect', 'non-scaling-stroke')
      .attr('d', d3.linkHorizontal().x(function (d) { return d.y; }).y(function (d) { return d.x; }));
    var extra = [];
    nodes.forEach(function (n) { (n.extra_parents || []).forEach(function (p) { if (pos[p]) extra.push({source: pos[p], target: pos[n.id]}); }); });
    g.selectAll('path.xlink').data(extra).enter().append('path').attr('class', 'xlink').attr('fill', 'none')
      .attr('stroke', '#6f42c1').attr('stroke-dasharray', '3 3').attr('vector-effect', 'non-scaling-stroke')
      .attr('d', d3.linkHorizontal().x(function (d) { return d.y; }).y(function (d) { return d.x; }));
    var circles = g.selectAll('circle.node').data(root.descendants().filter(function (d) { return d.data.id !== 0; })).enter()
      .append('circle').attr('class', 'node').attr('data-id', function (d) { return d.data.id; })
      .attr('cx', function (d) { return d.y; }).attr('cy', function (d) { return d.x; })
      .attr('r', function (d) { return Math.max(radius(d), 3 / d3.zoomTransform(svg.node()).k); })
      .attr('fill', function (d) { return color(d.data.n.status); })
      .attr('stroke', function (d) { return isl[d.data.n.island % 10]; }).attr('stroke-width', 2)
      .attr('vector-effect', 'non-scaling-stroke')
      .on('click', function (d) { select(d.data.id); });
    circles.append('title').text(function (d) { var n = d.data.n; return '#' + n.id + ' ' + n.status + (n.time_ms ? ' ' + fmt(n.time_ms) + ' ms' : '') + ' island ' + n.island + ' gen ' + n.generation; });
    g.selectAll('path.migration').data(L.migrations.filter(function (m) { return pos[m.id]; })).enter().append('path')
      .attr('class', 'migration').attr('fill', '#e16f24')
      .attr('d', function (m) { var d = pos[m.id]; return 'M' + (d.y + 8) + ',' + (d.x - 4) + 'l8,4l-8,4z'; })
      .append('title').text(function (m) { return '#' + m.id + ' migrated island ' + m.from + ' -> ' + m.to + ' at generation ' + m.generation; });
  }

  function renderKnobs() {
    clear(sKnobs);
    run().knobs.forEach(function (k) {
      var box = el('div', sKnobs, null, 'knob'); box.setAttribute('data-knob', k.knob);
      el('h3', box, k.knob).style.margin = '6px 0 2px';
      var t = el('table', box), h = el('tr', t);
      ['value', 'tried', 'ok', 'failed', 'median ms', 'p10-p90 ms', ''].forEach(function (c) { el('th', h, c); });
      var mx = hasD3 ? d3.max(k.values, function (v) { return v.time_ms.p90; }) || 1 : 1;
      k.values.forEach(function (v) {
        var tr = el('tr', t); tr.setAttribute('data-value', v.value);
        var failed = Object.keys(v.failed).map(function (s) { return s + ' ' + v.failed[s]; }).join(', ');
        el('td', tr, v.value); el('td', tr, v.tried, 'tried'); el('td', tr, v.ok, 'ok'); el('td', tr, failed || '0', 'failed');
        el('td', tr, fmt(v.time_ms.median)); el('td', tr, fmt(v.time_ms.p10) + ' - ' + fmt(v.time_ms.p90));
        var td = el('td', tr);
        if (hasD3 && v.time_ms.count) {
          var s = d3.select(td).append('svg').attr('width', 160).attr('height', 12), x = d3.scaleLinear().domain([0, mx]).range([0, 156]);
          s.append('rect').attr('x', x(v.time_ms.p10)).attr('width', Math.max(1, x(v.time_ms.p90) - x(v.time_ms.p10))).attr('y', 2).attr('height', 8).attr('fill', '#9ecae1');
          s.append('rect').attr('x', x(v.time_ms.median) - 1).attr('width', 2).attr('y', 0).attr('height', 12).attr('fill', '#08519c');
        }
      });
    });
  }

  function renderFailures() {
    clear(sFail);
    var f = run().failures;
    if (!f.length) { el('p', sFail, 'No failures.'); return; }
    var t = el('table', sFail), h = el('tr', t);
    ['verdict', 'count', 'reason', 'candidates'].forEach(function (c) { el('th', h, c); });
    f.forEach(function (g) {
      var tr = el('tr', t, null, 'failure'); tr.setAttribute('data-status', g.status);
      el('td', tr, g.status).style.color = color(g.status); el('td', tr, g.count, 'count'); el('td', tr, g.example, 'reason');
      var td = el('td', tr);
      g.ids.slice(0, 12).forEach(function (id) { var a = el('a', td, '#' + id); a.href = '#'; a.onclick = function (e) { e.preventDefault(); select(id); }; td.appendChild(document.createTextNode(' ')); });
      if (g.ids.length > 12) td.appendChild(document.createTextNode('...'));
    });
  }

  // Every timed iteration of every rank as a dot on one time axis, median marked: the spread
  // and the tail that a median hides.
  function timesStrip(parent, ranks) {
    if (!hasD3) return;
    var all = []; ranks.forEach(function (r) { (r.times_ms || []).forEach(function (t) { all.push(t); }); });
    if (!all.length) return;
    var W = 420, rowH = 16, H = 24 + rowH * ranks.length;
    var svg = d3.select(parent).append('svg').attr('class', 'times').attr('width', W).attr('height', H);
    var x = d3.scaleLinear().domain([0, d3.max(all) * 1.05]).range([50, W - 10]);
    svg.append('g').attr('transform', 'translate(0,' + (H - 18) + ')').call(d3.axisBottom(x).ticks(5));
    ranks.forEach(function (r, i) {
      var y = 10 + i * rowH;
      svg.append('text').attr('x', 0).attr('y', y + 4).attr('font-size', 10).text('rank ' + (r.rank === null ? i : r.rank));
      svg.selectAll(null).data(r.times_ms || []).enter().append('circle').attr('class', 'iter').attr('cx', function (t) { return x(t); })
        .attr('cy', y).attr('r', 2.5).attr('fill', '#0969da').attr('opacity', 0.6);
      if (r.median_ms !== null && r.median_ms !== undefined)
        svg.append('rect').attr('x', x(r.median_ms) - 1).attr('y', y - 6).attr('width', 2).attr('height', 12).attr('fill', '#cf222e');
    });
  }
  // frozen[n]: line n (1-based) of `code` lies outside every EVOLVE block (the marker lines are in).
  function frozenLines(code) {
    var frozen = [false], inBlock = false;
    code.split('\n').forEach(function (line) {
      if (line.indexOf('EVOLVE-BLOCK-START') >= 0) inBlock = true;
      frozen.push(!inBlock);
      if (line.indexOf('EVOLVE-BLOCK-END') >= 0) inBlock = false;
    });
    return frozen;
  }
  // A unified diff whose new side is `code` (when the report has it): lines of frozen code greyed.
  function diffPre(parent, text, cls, code) {
    var pre = el('pre', parent, null, cls), frozen = code ? frozenLines(code) : null, n = 0;
    (text || '(no change)').split('\n').forEach(function (line) {
      var hunk = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line), c = '';
      if (hunk) { n = +hunk[1]; c = 'hunk'; }
      else if (line[0] === '+' && line.slice(0, 3) !== '+++') c = 'add' + (frozen && frozen[n++] ? ' frozen' : '');
      else if (line[0] === '-' && line.slice(0, 3) !== '---') c = 'del';
      else if (line[0] === ' ') c = frozen && frozen[n++] ? 'frozen' : '';
      el('div', pre, line, c);
    });
  }
  function codePre(parent, code) {
    var pre = el('pre', parent, null, 'code'), frozen = frozenLines(code);
    code.split('\n').forEach(function (line, i) { el('div', pre, line, frozen[i + 1] ? 'frozen' : ''); });
  }
  // A stage's error figures, or '-' where it checked nothing (a compile error's zeros are no pass).
  function errorFigures(e) {
    return e && e.checks ? fmt(e.rel_l2) + ' / ' + fmt(e.max_abs) + ' (' + fmt(e.checks) + ' checks)' : '-';
  }
  function select(id) {
    selected = id;
    if (hasD3) d3.select(sTree).selectAll('circle.node').classed('sel', function (d) { return d.data.id === id; });
    clear(sDetail);
    var c = byId(id);
    if (!c) { el('p', sDetail, 'no candidate #' + id); return; }
    var m = c.metrics || {};
    var head = el('div', sDetail); head.id = 'detail-head';
    el('strong', head, '#' + c.id + ' ').setAttribute('data-id', c.id);
    el('span', head, c.status, 'verdict').style.color = color(c.status);
    kvTable(sDetail, [['reason', c.reason], ['time (median, max over ranks)', c.time_ms === null ? '-' : fmt(c.time_ms) + ' ms'],
      ['speed-up over seed', c.speedup === null ? '-' : fmt(c.speedup, 2) + 'x'], ['parent', c.parent ? '#' + c.parent : '-'],
      ['extra parents', (c.extra_parents || []).map(function (p) { return '#' + p; }).join(' ') || '-'],
      ['island / generation', c.island + ' / ' + c.generation], ['proposer', c.proposer], ['mutation', c.mutation_kind],
      ['feedback', c.feedback], ['change (as proposed)', m.search ? (m.search.description || '') : '-']]);
    var advice = (run().meta.summaries || {})[String(c.generation)];
    if (advice) { var ad = el('details', sDetail); ad.id = 'advice'; el('summary', ad, 'meta-summary advice it was proposed with (generation ' + c.generation + ')'); el('pre', ad, advice); }
    el('h3', sDetail, 'Knobs');
    kvTable(sDetail, Object.keys(c.knobs || {}).map(function (k) { return [k, c.knobs[k]]; }));
    el('h3', sDetail, 'Figures');
    var fig = el('div', sDetail); fig.id = 'figures';
    var tm = m.timing || {};
    kvTable(fig, [['timing method', m.timing_method || '-'], ['median ms (max over ranks)', tm.median_ms], ['p10 ms', tm.p10_ms], ['p90 ms', tm.p90_ms],
      ['spread p90/p10', tm.spread === undefined ? '-' : fmt(tm.spread, 2) + (tm.noisy ? ' (noisy)' : '')],
      ['tail median ms', tm.tail_median_ms], ['iters', tm.iters],
      ['verify: rel L2 / max abs', errorFigures(m.verify)], ['bench: rel L2 / max abs', errorFigures(m.bench)]]);
    if (c.ranks && c.ranks.length) {
      var t = el('table', fig, null, 'ranks'), h = el('tr', t);
      ['rank', 'median ms', 'p10 ms', 'p90 ms', 'worst rel L2', 'worst max abs', 'checks'].forEach(function (x) { el('th', h, x); });
      c.ranks.forEach(function (r, i) {
        var tr = el('tr', t);
        [r.rank === null ? i : r.rank, r.median_ms, r.p10_ms, r.p90_ms, r.rel_l2, r.max_abs, r.checks].forEach(function (v) { el('td', tr, fmt(v)); });
      });
      timesStrip(fig, c.ranks);
    }
    var tabs = el('div', sDetail, null, 'tabs'), body = el('div', sDetail); body.id = 'detail-body';
    var views = [['diff vs parent', function () { diffPre(body, c.diff_parent, 'diff-parent', c.code); }],
      ['diff vs seed', function () { diffPre(body, c.diff_seed, 'diff-seed', c.code); }],
      ['code', function () { if (c.code) codePre(body, c.code); else el('p', body, 'code not in this report (large run): cuco show'); }],
      ['logs', function () { el('pre', body, c.logs || '(none)', 'logs'); }],
      ['metrics', function () { el('pre', body, JSON.stringify(m, null, 1)); }]];
    views.forEach(function (v, i) {
      var b = el('button', tabs, v[0]); b.onclick = function () { body.textContent = ''; Array.prototype.forEach.call(tabs.children, function (x) { x.className = ''; }); b.className = 'on'; v[1](); };
      if (i === 0) { b.className = 'on'; v[1](); }
    });
  }

  function renderCompare() {
    clear(sCompare);
    var t = el('table', sCompare), h = el('tr', t);
    ['run', 'candidates', 'seed ms', 'best', 'best ms', 'over seed'].forEach(function (c) { el('th', h, c); });
    data.runs.forEach(function (r) {
      var m = r.meta, tr = el('tr', t);
      el('td', tr, m.label); el('td', tr, m.candidates); el('td', tr, fmt(m.seed_ms));
      el('td', tr, m.best ? '#' + m.best.id : '-'); el('td', tr, m.best ? fmt(m.best.time_ms) : '-');
      el('td', tr, m.best && m.seed_ms ? fmt(m.seed_ms / m.best.time_ms, 2) + 'x' : '-');
    });
  }

  function renderAll() {
    runSel.textContent = '';
    data.runs.forEach(function (r, i) { var o = el('option', runSel, r.meta.label); o.value = i; if (i === cur) o.selected = true; });
    renderMeta(); renderChart(); renderTree(); renderKnobs(); renderFailures(); renderCompare();
    if (selected !== null && byId(selected)) select(selected);
    document.body.setAttribute('data-candidates', run().candidates.length);
    document.body.setAttribute('data-ready', '1');
  }
  runSel.onchange = function () { cur = +runSel.value; selected = null; clear(sDetail); renderAll(); };
  window.cucoSelect = select;
  if (!window.CUCO_LIVE) { renderAll(); return; }
  // Live (cuco serve): the data comes from /data.json, again whenever /api/state changes. One
  // request at a time; the next poll is scheduled when the last one ended.
  var version = null;
  function poll() {
    fetch('/api/state').then(function (r) { return r.json(); }).then(function (s) {
      if (s.version === version) return;
      return fetch('/data.json').then(function (r) { return r.json(); }).then(function (d) {
        data = d; version = s.version; liveTag.textContent = ' live'; renderAll();
      });
    }).catch(function () { liveTag.textContent = ' (server not answering)'; })
      .then(function () { setTimeout(poll, 500); });
  }
  poll();
})();
