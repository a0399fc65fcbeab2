#!/usr/bin/env python3
"""Scale benchmark of the run viewers (issue 18; not a test: nothing is asserted).

Usage: bench/report_scale.py <cuco> <real-run-dir> <out-dir>

1. A store of 10,000 candidates generated from a real run (tests/report/make_run.sh's): its rows
   repeated with a random lineage (parents earlier, crossovers, 4 islands, migrations), verdicts
   and times; then `cuco report` timed, and the page's render in headless Chromium timed (load to
   the page's data-ready mark).
2. `cuco evolve` of cpu_exchange (60 candidates) alone, then the same evolve again under
   `cuco serve` with 50 concurrent loopback clients
   polling /api/state and fetching /data.json on change while the search writes; every HTTP
   failure and every failed write (a candidate left pending, an evolve error) counted.
Writes <out-dir>/results.json and prints it.
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

cuco, real, out = sys.argv[1:4]
src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.makedirs(out, exist_ok=True)
res = {}

# 1. 10,000 candidates.
big = os.path.join(out, "big")
shutil.rmtree(big, ignore_errors=True)
os.makedirs(big)
shutil.copy(os.path.join(real, "cuco.db"), os.path.join(big, "cuco.db"))
db = sqlite3.connect(os.path.join(big, "cuco.db"))
cols = [r[1] for r in db.execute("pragma table_info(candidates)")]
base = [dict(zip(cols, r)) for r in db.execute("select * from candidates where status != 'pending'")]
db.execute("delete from candidates")
rng = random.Random(18)
rows, migrations, t0 = [], [], 1_790_000_000_000
for i in range(1, 10_001):
    r = dict(base[(i - 1) % len(base)])
    r["id"] = i
    r["parent_id"] = 0 if i == 1 else rng.randint(max(1, i - 400), i - 1)
    r["extra_parent_ids"] = json.dumps([rng.randint(1, i - 1)]) if i > 2 and rng.random() < 0.1 else "[]"
    r["island"], r["generation"] = i % 4, i // 8
    r["code_hash"] = f"{i:064x}"
    r["created_ms"], r["finished_ms"] = t0 + 500 * i, t0 + 500 * i + 400
    if i % 40 == 0:
        migrations.append([i // 8, i % 4, (i + 1) % 4, i])
    rows.append(tuple(r[c] for c in cols))
db.executemany(f"insert into candidates ({','.join(cols)}) values ({','.join('?' * len(cols))})", rows)
state = json.loads(db.execute("select value from meta where key = 'search.state'").fetchone()[0])
state["migrations"] = migrations
db.execute("update meta set value = ? where key = 'search.state'", (json.dumps(state),))
db.commit()
db.close()
html = os.path.join(out, "big.html")
t = time.time()
subprocess.run([cuco, "report", big, "-o", html], check=True, stdout=subprocess.DEVNULL)
res["report_10k_s"] = round(time.time() - t, 2)
res["report_10k_mib"] = round(os.path.getsize(html) / 2**20, 1)

from playwright.sync_api import sync_playwright  # noqa: E402

with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = b.new_page(viewport={"width": 1500, "height": 1300})
    t = time.time()
    page.goto("file://" + html, timeout=120000)
    page.wait_for_selector("body[data-ready='1']", timeout=120000)
    res["render_10k_s"] = round(time.time() - t, 2)
    res["render_10k_nodes"] = page.eval_on_selector_all("#tree circle.node", "e => e.length")
    page.screenshot(path=os.path.join(out, "big.png"))
    b.close()

# 2. serve + 50 clients while evolve writes.
live = os.path.join(out, "live")
shutil.rmtree(live, ignore_errors=True)
cfg = os.path.join(out, "live.toml")
open(cfg, "w").write(open(os.path.join(src, "tests/report/run.toml")).read().replace("max_candidates = 110", "max_candidates = 60"))
alone = os.path.join(out, "alone")
shutil.rmtree(alone, ignore_errors=True)
t = time.time()
subprocess.run([cuco, "evolve", os.path.join(src, "tests/workloads/cpu_exchange"), "--config", cfg, "--run-dir", alone],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
res["evolve_alone_s"] = round(time.time() - t, 1)
t_evolve = time.time()
evo = subprocess.Popen([cuco, "evolve", os.path.join(src, "tests/workloads/cpu_exchange"), "--config", cfg, "--run-dir", live],
                       stdout=open(os.path.join(out, "live-evolve.out"), "w"), stderr=subprocess.STDOUT)
while not os.path.exists(os.path.join(live, "cuco.db")):
    time.sleep(0.05)
time.sleep(0.5)
srv = subprocess.Popen([cuco, "serve", live, "--port", "0"], stdout=subprocess.PIPE, text=True)
url = re.search(r"(http://127\.0\.0\.1:\d+/)", srv.stdout.readline()).group(1)
stats = {"requests": 0, "failures": 0, "data_fetches": 0}
lock = threading.Lock()
stop = threading.Event()


def client():
    version = None
    while not stop.is_set():
        try:
            s = json.load(urllib.request.urlopen(url + "api/state", timeout=10))
            n = 1
            if s["version"] != version:
                urllib.request.urlopen(url + "data.json", timeout=30).read()
                version, n = s["version"], 2
            with lock:
                stats["requests"] += n
                stats["data_fetches"] += n - 1
        except Exception:  # noqa: BLE001 - every failure counts
            with lock:
                stats["failures"] += 1
        time.sleep(0.7)


threads = [threading.Thread(target=client) for _ in range(50)]
t = time.time()
for th in threads:
    th.start()
evo.wait()
res["evolve_under_serve_s"] = round(time.time() - t_evolve, 1)
stop.set()
for th in threads:
    th.join()
srv.terminate()
db = sqlite3.connect(os.path.join(live, "cuco.db"))
res["serve_clients"] = 50
res["serve_seconds"] = round(time.time() - t, 1)
res["serve_http"] = stats
res["evolve_exit"] = evo.returncode
res["evolve_candidates"] = db.execute("select count(*) from candidates").fetchone()[0]
res["evolve_left_pending"] = db.execute("select count(*) from candidates where status = 'pending'").fetchone()[0]
res["evolve_log_lock_errors"] = open(os.path.join(out, "live-evolve.out")).read().count("locked")
json.dump(res, open(os.path.join(out, "results.json"), "w"), indent=1)
print(json.dumps(res, indent=1))
