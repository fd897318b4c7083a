-- The shop of bench/app_capture.sh on MySQL or MariaDB, as sysbench drives
-- it (sysbench shop_mysql.lua --rate N ... run): the statements sent as text
-- with their values in them, as most PHP, Python and Node applications send
-- them (MariaDB's digests do not count prepared statements). The mix:
--   checkout (50 %): BEGIN, a customer drawn as pgbench's random_zipfian(1,
--     10000, 1.1) draws (sysbench 1.0 has no zipfian: by inversion of the
--     cumulative probabilities below), an item, a quantity; five
--     statements; COMMIT
--   view (25 %): an item and its four neighbours, an IN list of five
--   recent (20 %): a customer's last ten orders, the customer as checkout's
--   report (5 %): a customer's figures, a statement of more than 1,024 bytes
--     (performance_schema_max_digest_length's default cuts its digest)

local customers, exponent = 10000, 1.1
local cumulative = {}
do
  local sum = 0
  for k = 1, customers do
    sum = sum + k ^ -exponent
    cumulative[k] = sum
  end
  for k = 1, customers do
    cumulative[k] = cumulative[k] / sum
  end
end

-- customer draws a customer: key k with probability proportional to
-- 1/k^exponent.
local function customer()
  local u = sysbench.rand.uniform_double()
  local lo, hi = 1, customers
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cumulative[mid] < u then
      lo = mid + 1
    else
      hi = mid
    end
  end
  return lo
end

-- With SHOP_EVENTS set to a folder, each thread writes there a line per
-- event: its kind, its end (Unix seconds) and its time in milliseconds
-- (from its start: sysbench's queueing behind --rate is not in it).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } rs_timespec;
  int clock_gettime(int clk, rs_timespec *ts);
]]
local ts = ffi.new("rs_timespec")
local function now()
  ffi.C.clock_gettime(0, ts) -- CLOCK_REALTIME
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end
local events

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  local dir = os.getenv("SHOP_EVENTS")
  if dir then
    events = io.open(string.format("%s/events.%d", dir, sysbench.tid), "w")
  end
end

function thread_done()
  if events then
    events:close()
  end
  con:disconnect()
end

local function timed(kind, fn)
  local t0 = now()
  fn()
  if events then
    local t1 = now()
    events:write(string.format("%s %.6f %.3f\n", kind, t1, (t1 - t0) * 1000))
  end
end

function checkout()
  local cid = customer()
  local iid = sysbench.rand.uniform(1, 1000)
  local qty = sysbench.rand.uniform(1, 5)
  con:query("BEGIN")
  con:query(string.format("SELECT balance FROM customers WHERE id = %d", cid))
  con:query(string.format("SELECT price FROM items WHERE id = %d", iid))
  con:query(string.format("UPDATE items SET stock = stock - %d WHERE id = %d", qty, iid))
  con:query(string.format("INSERT INTO orders (customer_id, item_id, qty, amount) VALUES (%d, %d, %d, %d * 2.5)", cid, iid, qty, qty))
  con:query(string.format("UPDATE customers SET orders = orders + 1 WHERE id = %d", cid))
  con:query("COMMIT")
end

function view()
  local iid = sysbench.rand.uniform(1, 996)
  con:query(string.format("SELECT id, name, price FROM items WHERE id IN (%d, %d, %d, %d, %d)", iid, iid + 1, iid + 2, iid + 3, iid + 4))
end

function recent()
  local cid = customer()
  con:query(string.format("SELECT id, amount FROM orders WHERE customer_id = %d ORDER BY id DESC LIMIT 10", cid))
end

-- report's columns: each figure of the customer under a name of its own,
-- which makes the statement longer than 1,024 bytes.
local figures = {}
for i = 1, 24 do
  figures[#figures + 1] = string.format("balance * %d AS balance_times_%02d, orders + %d AS orders_plus_%02d", i, i, i, i)
end
local report_sql = "SELECT id, name, " .. table.concat(figures, ", ") .. " FROM customers WHERE id = %d"

function report()
  con:query(string.format(report_sql, customer()))
end

function event()
  local r = sysbench.rand.uniform(1, 100)
  if r <= 50 then
    timed("checkout", checkout)
  elseif r <= 75 then
    timed("view", view)
  elseif r <= 95 then
    timed("recent", recent)
  else
    timed("report", report)
  end
end
