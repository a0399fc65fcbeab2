#!/usr/bin/env bash
# One GPU, world size 1 (issue 18, "On one GPU"): a short `cuco evolve` of moe_dispatch_combine
# with the builtin proposer, then `cuco report` of it, `cuco export --json`, `cuco ls`, and
# screenshots of the report in headless Chromium (when the device has it and Playwright).
# Run from the repo root on the device, with .carry/ as in bench/one-gpu/README.md (the cuco binary,
# its libs) and .carry/d3.min.js (Debian node-d3's /usr/share/nodejs/d3/dist/d3.min.js) when the
# device lacks node-d3. Results: $OUT/report.html, report.png, export.json, the store.
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
[ -f .carry/d3.min.js ] && [ ! -f /usr/share/nodejs/d3/dist/d3.min.js ] && export CUCO_D3_JS=$PWD/.carry/d3.min.js
WALL=${WALL:-240}
RUN=/tmp/report-moe-w1
rm -rf $RUN
sed "s/^max_wall_s = [0-9]*/max_wall_s = $WALL/" bench/evolve-64.toml > /tmp/report-moe-w1.toml
.carry/cuco evolve workloads/moe_dispatch_combine --config /tmp/report-moe-w1.toml --run-dir $RUN \
  --world-size 1 --size E_PER_RANK=8 > $OUT/evolve.out 2> $OUT/evolve.err
echo "evolve exit $?"
tail -5 $OUT/evolve.out
/usr/bin/time -f "report: %e s" .carry/cuco report $RUN -o $OUT/report.html
.carry/cuco export $RUN --json > $OUT/export.json
.carry/cuco ls /tmp --json > $OUT/ls.json
.carry/cuco best $RUN --json > $OUT/best.json
cp $RUN/cuco.db $RUN/config.toml $OUT/ 2>/dev/null
if python3 -c 'import playwright' 2>/dev/null && command -v chromium >/dev/null; then
  python3 - "$OUT" <<'PY'
import sys
from playwright.sync_api import sync_playwright
out = sys.argv[1]
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    pg = b.new_page(viewport={"width": 1500, "height": 1300})
    pg.goto("file://" + out + "/report.html")
    pg.wait_for_selector("body[data-ready='1']")
    pg.screenshot(path=out + "/report.png")
    best = pg.evaluate("() => { const d = JSON.parse(document.getElementById('cuco-data').textContent); return d.runs[0].meta.best; }")
    if best:
        pg.evaluate(f"() => window.cucoSelect({best['id']})")
        pg.screenshot(path=out + "/report-best.png", full_page=True)
    b.close()
PY
else
  echo "no Playwright/Chromium on the device: open $OUT/report.html and screenshot it elsewhere"
fi
