-- wrk script of the HTTP rows of bench/peers.sh, bench/compare.py and bench/http_ab.py: POST
-- /v1/levels {"algorithm":"classic","seed":N} with N counting up, so no two
-- requests ask for the same level.
local counter = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, '{"algorithm":"classic","seed":' .. counter .. '}')
end
