-- wrk script for bench/run's passkey row: asks for sign-in options as fast as it can and appends each
-- answer's challenge to the file $BENCH_CHALLENGES.<thread>, one per line. bench/run then signs one
-- assertion per challenge, so every measured sign-in redeems a challenge chatterd issued and nobody used.

local count = 0

function setup(thread)
   count = count + 1
   thread:set("thread_index", count)
end

function init(args)
   out = io.open(os.getenv("BENCH_CHALLENGES") .. "." .. thread_index, "w")
   options = wrk.format("POST", "/v1/auth/passkey/signin/options", {["Content-Type"] = "application/json"}, "{}")
end

function request()
   return options
end

function response(status, headers, body)
   if status == 200 then
      local challenge = body:match('"challenge"%s*:%s*"([^"]+)"')
      if challenge then
         out:write(challenge, "\n")
         out:flush()
      end
   end
end
