"""Compares the shop's production window with the study's 1x step on the
copy, from the files bench/app_capture.sh leaves in its directory (argv[1];
argv[2] is the server, postgres or mariadb): the snapshots (*.stmts,
*.customers, *.commits, *.time), production's per-transaction log
(pgbench's prod.*, or shop_mysql.lua's events/*), the captured file and the
study's results (study/). Prints one line per measure with both sides, the
difference and the issue's bound."""

import glob
import json
import math
import os
import re
import sys

D, SERVER = sys.argv[1], sys.argv[2]
PG_SCRIPTS = {"0": "checkout", "1": "view", "2": "recent"}


def read(name):
    with open(os.path.join(D, name)) as f:
        return f.read()


def key(query):
    """A statement's text with its placeholders, casts, numbers and lists
    made ?: the same statement whichever client sent it, and a MariaDB
    digest of it."""
    q = query.strip().rstrip(";").replace("`", "").lower()
    q = re.sub(r"::\w+", "", q)
    q = re.sub(r":\w+|\$\d+|\b\d+(\.\d+)?\b", "?", q)
    q = re.sub(r"\s+", "", q)
    q = q.replace("?,...", "?").replace("(...)", "(?)")
    return re.sub(r"\?(,\?)+", "?", q)  # a list, or MariaDB's run of values


def statement_calls(before, after):
    """The calls of each statement between two snapshots (id, calls,
    text), by key."""
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
        SHOWN.setdefault(k, re.sub(r"\s+", " ", text.replace("`", "")))
    return out


SHOWN = {}  # a statement's key -> its text as production's statistics wrote it


def file_statements():
    """The captured file's statements by transaction: name -> [keys]."""
    out, name = {}, None
    for line in read("my-app.yaml").splitlines():
        m = re.match(r"  - name: (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
        m = re.match(r'      - "(.*)"$', line)
        if m and name:
            out[name].append(key(m.group(1).replace('\\"', '"')))
    return out


def order_deltas(before, after):
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


def row(what, prod, copy, diff, bound, ok):
    verdict = "" if ok is None else "ok" if ok else "MISSED"
    print(f"{what:<50} {prod:>10} {copy:>10} {diff:>9}   {bound:<16} {verdict}")


def production_events(t0, t1):
    """Production's transactions that ended in the window: kind -> their
    times in ms (pgbench: from the scheduled start; the MariaDB script:
    from the start)."""
    lat = {}
    if SERVER == "postgres":
        for path in glob.glob(os.path.join(D, "prod.*")):
            with open(path) as f:
                for line in f:
                    fs = line.split()
                    end = int(fs[4]) + int(fs[5]) / 1e6
                    if t0 <= end <= t1:
                        lat.setdefault(PG_SCRIPTS[fs[3]], []).append(int(fs[2]) / 1000)
    else:
        for path in glob.glob(os.path.join(D, "events", "events.*")):
            with open(path) as f:
                for line in f:
                    kind, end, ms = line.split()
                    if t0 <= float(end) <= t1:
                        lat.setdefault(kind, []).append(float(ms))
    return lat


def one_x():
    """The study's 1x step's result."""
    for path in glob.glob(os.path.join(D, "study", "*.json")):
        with open(path) as f:
            doc = json.load(f)
        if isinstance(doc, dict) and doc.get("steps") and doc.get("axis") == "rate":
            res = doc["steps"][0]["result"]
            for p in (res, os.path.join(D, res), os.path.join(D, "study", os.path.basename(res))):
                if os.path.exists(p):
                    with open(p) as f:
                        return json.load(f)
    sys.exit("no rate sweep in " + os.path.join(D, "study"))


t0, t1 = float(read("prod_before.time")), float(read("prod_after.time"))
lat = production_events(t0, t1)
ptx = sum(len(v) for v in lat.values())
one = one_x()
types = {t["name"]: t for t in one["summary"]["types"]}
stmts = file_statements()


def type_of(kind):
    """The captured transaction that stands for one of production's: the
    one with an INSERT (checkout), the read of items, the read of orders."""
    for name in types:
        if kind == "checkout" and "insert" in name or kind == "view" and name.startswith("select_items") \
                or kind == "recent" and name.startswith("select_orders"):
            return name
    return None


print(f"{SERVER}: production window {t1 - t0:.0f} s, {ptx} transactions; the study's 1x step: "
      f"{one['summary']['duration_s']:.0f} s, {one['summary']['count']} transactions")
print(f"{'measure':<50} {'production':>10} {'copy at 1x':>10} {'diff':>9}   bound")
kept = {k: v for k, v in lat.items() if type_of(k)}
for k in sorted(set(lat) - set(kept)):
    row(f"left out by capture: {k}", f"{100 * len(lat[k]) / ptx:.1f} %", "-", "", "(its note says why)", None)
ktx = sum(len(v) for v in kept.values())
prod_tps, copy_tps = ktx / (t1 - t0), one["summary"]["throughput"]
d = copy_tps / prod_tps - 1
row("transactions/s (the clients' count)", f"{prod_tps:.1f}", f"{copy_tps:.1f}", f"{100 * d:+.1f} %", "within 10 %", abs(d) <= 0.10)
if SERVER == "postgres":
    # The server's own count; on the copy it also holds rightsize's
    # server-stats monitor (a query per 100 ms sample, the counters every
    # second), subtracted, and PostgreSQL flushes its counters lazily.
    srv = one["server"]
    prod_commits = (int(read("prod_after.commits")) - int(read("prod_before.commits"))) / (t1 - t0)
    copy_commits = (srv["counters"]["pg_stat_database.xact_commit"] - srv["samples"] - srv["duration_s"]) / srv["duration_s"]
    row("commits/s (pg_stat_database; copy: less monitor)", f"{prod_commits:.1f}", f"{copy_commits:.1f}",
        f"{100 * (copy_commits / prod_commits - 1):+.1f} %", "", None)
for kind in sorted(kept, key=lambda k: -len(kept[k])):
    t = type_of(kind)
    ps, cs = 100 * len(kept[kind]) / ktx, types[t]["share_pct"]
    row(f"share of transactions: {kind}", f"{ps:.1f} %", f"{cs:.1f} %", f"{cs - ps:+.1f} pt", "within 3 points", abs(cs - ps) <= 3)

pc = statement_calls("prod_before.stmts", "prod_after.stmts")
app = {k: v for k, v in pc.items() if v > 0 and not re.match(r"(begin|end|commit|rollback|selectpg_|/\*)", k)
       and "pg_" not in k and "information_schema" not in k and "performance_schema" not in k}
total = sum(app.values())
app = {k: v for k, v in app.items() if v >= 0.005 * total}  # not the script's snapshots, a client's version()
if SERVER == "postgres":
    cc = statement_calls("copy_before.stmts", "copy_after.stmts")
    where = "pg_stat_statements"
else:
    # The replay's prepared statements are not in MariaDB's digests: its
    # 1x result counts each statement (transaction/n).
    cc = {}
    for op in one["ops"]:
        tx, _, n = op["name"].rpartition("/")
        if tx in stmts and n.isdigit():
            k = stmts[tx][int(n) - 1]
            cc[k] = cc.get(k, 0) + op["count"]
    where = "digests; the result"
in_file = {k for ks in stmts.values() for k in ks}
for k in sorted(set(app) - in_file):
    row("left out by capture: " + SHOWN[k][:28], f"{100 * app[k] / total:.1f} %", "-", "", "(its note says why)", None)
ptot = sum(v for k, v in app.items() if k in in_file)
ctot = sum(cc.get(k, 0) for k in app if k in in_file)
for k in sorted((k for k in app if k in in_file), key=lambda k: -app[k]):
    ps, cs = 100 * app[k] / ptot, 100 * cc.get(k, 0) / ctot if ctot else float("nan")
    row("share of calls: " + SHOWN[k][:34], f"{ps:.1f} %", f"{cs:.1f} %", f"{cs - ps:+.1f} pt", "within 3 points", abs(cs - ps) <= 3)
print(f"  (statements' calls: {where}; shares among the statements the file kept)")
ph = top_share(order_deltas("prod_before.customers", "prod_after.customers"))
ch = top_share(order_deltas("copy_before.customers", "copy_after.customers"))
row("busiest 1 % of customers' share of orders", f"{100 * ph:.1f} %", f"{100 * ch:.1f} %", f"{100 * (ch - ph):+.1f} pt", "within 5 points", abs(ch - ph) <= 0.05)
pp, cp = p95(lat.get("checkout", [])), types[type_of("checkout")]["p95_ms"]
row("checkout p95 (ms)", f"{pp:.2f}", f"{cp:.2f}", f"{cp / pp:.2f}x", "within 2x", 0.5 <= cp / pp <= 2)
