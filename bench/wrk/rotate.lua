-- wrk script for bench/run and bench/soak: rotates through the requests listed in the file named by
-- $BENCH_REQUESTS (one per line: METHOD<TAB>PATH<TAB>BODY[<TAB>BEARER TOKEN[<TAB>COOKIE]]), counts response statuses
-- per thread, and prints one line "BENCH_RESULT {json}" that the Python side parses.
--
-- Rotation matters: /adduser must see many distinct ID tokens and /postauth many sessions, as real
-- traffic does, rather than one hot row.
--
-- Single use: with $BENCH_ONCE=1 each request in the file is sent at most once (a passkey assertion
-- redeems its challenge).
--
-- Refresh chains: with $BENCH_REFRESH_TOKENS (a file of refresh tokens, one per line, and $BENCH_THREADS
-- the thread count), each thread takes its share and sends POST /v1/auth/refresh with a token nobody has
-- used, then uses the refresh token each answer returns: every request is a real rotation.

local threads = {}
local thread_count = 0

function setup(thread)
   thread_count = thread_count + 1
   thread:set("thread_index", thread_count)
   table.insert(threads, thread)
end

local function split_tab(line)
   local method, path, rest = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
   if not method then
      return nil
   end
   local fields = {}
   for field in (rest .. "\t"):gmatch("([^\t]*)\t") do
      fields[#fields + 1] = field
   end
   return method, path, fields[1], fields[2], fields[3]
end

local function init_refresh_chains(file)
   local share = tonumber(os.getenv("BENCH_THREADS"))
   fresh = {}
   local n = 0
   for token in io.lines(file) do
      n = n + 1
      if n % share == thread_index - 1 then
         fresh[#fresh + 1] = token
      end
   end
   assert(#fresh > 0, "no refresh tokens for thread " .. thread_index)
   -- DPoP-bound sessions: each refresh carries a proof of its own, read a line per request from this thread's
   -- file ($BENCH_DPOP_PROOFS.<thread>): reading them all here would spend the measured run's first seconds.
   local proofs_file = os.getenv("BENCH_DPOP_PROOFS")
   if proofs_file and proofs_file ~= "" then
      proofs = assert(io.open(proofs_file .. "." .. thread_index, "r"))
   end
end

local function format(line)
   local method, path, body, bearer, cookie = split_tab(line)
   if not method then
      return nil
   end
   local headers = {}
   if bearer and bearer ~= "" then
      headers["Authorization"] = "Bearer " .. bearer
   end
   if cookie and cookie ~= "" then
      headers["Cookie"] = cookie
   end
   if body ~= "" then
      headers["Content-Type"] = "application/json"
   else
      body = nil
   end
   return wrk.format(method, path, headers, body)
end

function init(args)
   statuses = {}
   requests = {}
   local chains = os.getenv("BENCH_REFRESH_TOKENS")
   if chains and chains ~= "" then
      init_refresh_chains(chains)
      return
   end
   local file = os.getenv("BENCH_REQUESTS")
   local single_use = os.getenv("BENCH_ONCE") == "1"
   local share = tonumber(os.getenv("BENCH_THREADS"))
   local n = 0
   for line in io.lines(file) do
      n = n + 1
      -- Single-use requests (each redeems something once): every thread takes its own share.
      if not single_use or n % share == thread_index - 1 then
         -- Formatted once here, so request() costs nothing but a table lookup.
         requests[#requests + 1] = format(line)
      end
   end
   assert(#requests > 0, "no requests in " .. tostring(file))
   if single_use then
      once = true
      return
   end
   -- Threads start at different offsets so they do not send the same token at the same moment.
   index = math.floor((thread_index - 1) * #requests / 2) % #requests
end

function request()
   if fresh then
      -- A thread holds more tokens than it has connections, so one is always free.
      local token = table.remove(fresh)
      local headers = {["Content-Type"] = "application/json"}
      if proofs then
         -- A thread that runs out sends none, which chatterd refuses (the row reports unexpected answers).
         headers["DPoP"] = proofs:read("*l")
      end
      return wrk.format("POST", "/v1/auth/refresh", headers, '{"refreshToken":"' .. token .. '"}')
   end
   if once then
      -- Each request once; a thread that runs out repeats its last, which chatterd refuses (and the row
      -- reports as unexpected answers): bench/run makes more than a run can send.
      last = table.remove(requests) or last
      return last
   end
   index = index % #requests + 1
   return requests[index]
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
   if fresh and status == 200 then
      local token = body:match('"refreshToken"%s*:%s*"([^"]+)"')
      if token then
         table.insert(fresh, 1, token)
      end
   end
end

function done(summary, latency, requests_)
   local total = {}
   for _, thread in ipairs(threads) do
      local counts = thread:get("statuses")
      for status, n in pairs(counts) do
         total[status] = (total[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(total) do
      parts[#parts + 1] = string.format('"%d":%d', status, n)
   end
   local e = summary.errors
   io.write(string.format(
      'BENCH_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,'
         .. '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"statuses":{%s}}\n',
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.timeout, table.concat(parts, ",")))
end
