"""Compares the shop's production window with the study's 1x step on the
copy, from the files bench/app_capture.sh leaves in its directory (argv[1]):
the snapshots (*.stmts, *.customers, *.commits, *.time), pgbench's
transaction log (prod.*) and the study's results (study/). Prints one line
per measure with both sides, the difference and the issue's bound."""

import glob
import json
import math
import os
import re
import sys

D = sys.argv[1]
SCRIPTS = {0: "checkout", 1: "view", 2: "recent"}
CHECKOUT_STATEMENTS = 5


def read(name):
    with open(os.path.join(D, name)) as f:
        return f.read()


def key(query):
    """A statement's text with its placeholders, casts and numbers made ?:
    the same statement whichever client sent it."""
    q = re.sub(r"::\w+", "", query.strip().rstrip(";"))
    q = re.sub(r"\$\d+|\b\d+(\.\d+)?\b", "?", q)
    return re.sub(r"\s+", " ", q).lower()


def calls(before, after):
    """The calls of each statement between two snapshots, by key."""
    def load(name):
        out = {}
        for line in read(name).splitlines():
            qid, n, text = line.split("\t", 2)
            out[qid] = (int(n), text)
        return out
    a, b = load(before), load(after)
    out = {}
    for qid, (n, text) in b.items():
        k = key(text)
        out[k] = out.get(k, 0) + n - a.get(qid, (0, ""))[0]
    return out


def orders(before, after):
    def load(name):
        return {int(i): int(n) for i, n in (l.split("\t") for l in read(name).splitlines())}
    a, b = load(before), load(after)
    return sorted((b[i] - a.get(i, 0) for i in b), reverse=True)


def top_share(deltas):
    total = sum(deltas)
    return sum(deltas[: max(len(deltas) // 100, 1)]) / total if total else float("nan")


def p95(xs):
    xs = sorted(xs)
    return xs[max(math.ceil(0.95 * len(xs)) - 1, 0)] if xs else float("nan")


def seconds(name):
    return float(read(name + ".time"))


def row(what, prod, copy, diff, bound, ok):
    print(f"{what:<44} {prod:>12} {copy:>12} {diff:>10}   {bound:<18} {'ok' if ok else 'MISSED'}")


t0, t1 = seconds("prod_before"), seconds("prod_after")
# pgbench's log: client, transaction, latency in µs (from its scheduled
# start, with -R), script, epoch seconds and µs of its end.
lat = {s: [] for s in SCRIPTS}
for path in glob.glob(os.path.join(D, "prod.*")):
    with open(path) as f:
        for line in f:
            fs = line.split()
            end = int(fs[4]) + int(fs[5]) / 1e6
            if t0 <= end <= t1:
                lat[int(fs[3])].append(int(fs[2]) / 1000)
ptx = sum(len(v) for v in lat.values())
prod_commits = (int(read("prod_after.commits")) - int(read("prod_before.commits"))) / (t1 - t0)

sweep = None
for path in glob.glob(os.path.join(D, "study", "*.json")):
    with open(path) as f:
        doc = json.load(f)
    if isinstance(doc, dict) and doc.get("steps") and doc.get("axis") == "rate":
        sweep = doc
if sweep is None:
    sys.exit("no rate sweep in " + os.path.join(D, "study"))
res_path = sweep["steps"][0]["result"]
if not os.path.isabs(res_path):
    res_path = os.path.join(D, res_path) if os.path.exists(os.path.join(D, res_path)) else os.path.join(D, "study", os.path.basename(res_path))
with open(res_path) as f:
    one = json.load(f)
srv = one["server"]
copy_commits = srv["counters"]["pg_stat_database.xact_commit"] / srv["duration_s"]
types = {t["name"]: t for t in one["summary"]["types"]}
with open(os.path.join(D, "my-app.yaml")) as f:
    spec_text = f.read()


def type_of(script):
    """The captured transaction that stands for a pgbench script: the one of
    five statements (checkout), the read of items, the read of orders."""
    for name in types:
        if script == "checkout" and "insert" in name:
            return name
        if script == "view" and name.startswith("select_items"):
            return name
        if script == "recent" and name.startswith("select_orders"):
            return name
    return None


print(f"production window {t1 - t0:.0f} s, {ptx} transactions; the study's 1x step: {one['summary']['duration_s']:.0f} s, {one['summary']['count']} transactions")
print(f"{'measure':<44} {'production':>12} {'copy at 1x':>12} {'diff':>10}   bound")
d = copy_commits / prod_commits - 1
row("commits/s (pg_stat_database)", f"{prod_commits:.1f}", f"{copy_commits:.1f}", f"{100 * d:+.1f} %", "within 10 %", abs(d) <= 0.10)
for s, name in SCRIPTS.items():
    t = type_of(name)
    ps = 100 * len(lat[s]) / ptx
    cs = types[t]["share_pct"] if t else float("nan")
    row(f"share of transactions: {name} ({t})", f"{ps:.1f} %", f"{cs:.1f} %", f"{cs - ps:+.1f} pt", "within 3 points", abs(cs - ps) <= 3)
pc, cc = calls("prod_before.stmts", "prod_after.stmts"), calls("copy_before.stmts", "copy_after.stmts")
app = {k: v for k, v in pc.items() if v > 0 and not re.match(r"(begin|end|commit|rollback|select pg_|/\*)", k) and "pg_" not in k and "information_schema" not in k}
ptot, ctot = sum(app.values()), sum(cc.get(k, 0) for k in app)
for k in sorted(app, key=lambda k: -app[k]):
    ps, cs = 100 * app[k] / ptot, 100 * cc.get(k, 0) / ctot if ctot else float("nan")
    row("share of calls: " + k[:28], f"{ps:.1f} %", f"{cs:.1f} %", f"{cs - ps:+.1f} pt", "within 3 points", abs(cs - ps) <= 3)
ph, ch = top_share(orders("prod_before.customers", "prod_after.customers")), top_share(orders("copy_before.customers", "copy_after.customers"))
row("busiest 1 % of customers' share of orders", f"{100 * ph:.1f} %", f"{100 * ch:.1f} %", f"{100 * (ch - ph):+.1f} pt", "within 5 points", abs(ch - ph) <= 0.05)
pp = p95(lat[0])
t = type_of("checkout")
cp = types[t]["p95_ms"] if t else float("nan")
row("checkout p95 (ms)", f"{pp:.2f}", f"{cp:.2f}", f"{cp / pp:.2f}x", "within 2x", 0.5 <= cp / pp <= 2)
