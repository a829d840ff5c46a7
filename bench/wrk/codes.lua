-- wrk script for bench/run's emailed-code row: asks for sign-in codes as fast as it can, each for an
-- address of its own, bench-code-N@example.com with N from $BENCH_CODE_FIRST up (the threads, $BENCH_THREADS
-- of them, interleaved), so no address meets its resend cooldown or hourly limit. Every ten addresses share
-- a client address, 10.x.y.z in X-Forwarded-For (chatterd trusts 127.0.0.1 as a proxy for this row), half
-- the hourly limit per client network. chatterd's development mail transport writes each code to
-- DATA_DIR/outbox, where bench/run reads it; this script only counts the answers' statuses and prints one
-- line "BENCH_CODES {json}".

local threads = {}
local count = 0

function setup(thread)
   count = count + 1
   thread:set("thread_index", count)
   table.insert(threads, thread)
end

function init(args)
   first = tonumber(os.getenv("BENCH_CODE_FIRST"))
   stride = tonumber(os.getenv("BENCH_THREADS"))
   sent = 0
   statuses = {}
end

function request()
   local n = first + sent * stride + thread_index - 1
   sent = sent + 1
   local k = math.floor(n / 10)
   local client = string.format("10.%d.%d.%d", math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
   return wrk.format("POST", "/v1/auth/email/code", {["Content-Type"] = "application/json", ["X-Forwarded-For"] = client},
      string.format('{"email":"bench-code-%d@example.com"}', n))
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
   local total = {}
   for _, thread in ipairs(threads) do
      for status, n in pairs(thread:get("statuses")) do
         total[status] = (total[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(total) do
      parts[#parts + 1] = string.format('"%d":%d', status, n)
   end
   io.write("BENCH_CODES {" .. table.concat(parts, ",") .. "}\n")
end
