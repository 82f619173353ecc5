#!/usr/bin/env python3
"""The API server at the HTTP level, through curl: raw SSE framing, error shapes and status
codes, the key, limits, CORS, disconnects and a full queue.

Usage: sse_curl_test.py HEARTH_CLI MODEL
Starts `hearth-cli serve --port 0` on loopback (several times, with different options) and talks
to it with curl only, so the bytes on the wire are what is checked.
"""
import json
import re
import subprocess
import sys
import time

CLI, MODEL = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


class Server:
    def __init__(self, *extra):
        self.proc = subprocess.Popen(
            [CLI, "serve", "-m", MODEL, "--port", "0", "-t", "2", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on (http://[^ ]+/v1) \(model ([^,]+),", line)
        if not m:
            self.proc.kill()
            raise SystemExit("server did not start: " + line + self.proc.stderr.read())
        self.base = m.group(1)
        self.root = self.base[: -len("/v1")]
        self.model = m.group(2)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.returncode


def curl(url, body=None, headers=(), method=None, raw=False, data_file=None):
    """Returns (status, headers text, body bytes)."""
    cmd = ["curl", "-sS", "-N", "-D", "-", "--max-time", "60"]
    if raw:
        cmd.append("--raw")
    for h in headers:
        cmd += ["-H", h]
    if method:
        cmd += ["-X", method]
    if data_file:
        cmd += ["--data-binary", "@" + data_file, "-H", "Content-Type: application/json"]
    elif body is not None:
        cmd += ["--data-binary", body if isinstance(body, str) else json.dumps(body),
                "-H", "Content-Type: application/json"]
    out = subprocess.run(cmd + [url], capture_output=True, timeout=90).stdout
    head, _, rest = out.partition(b"\r\n\r\n")
    while head.startswith(b"HTTP/1.1 1"):  # "100 Continue" before the real response
        head, _, rest = rest.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, head.decode("latin-1"), rest


def health(srv):
    return json.loads(curl(srv.root + "/health")[2])


def error_shape(status, body, want_status, want_code=None, want_param=None):
    try:
        e = json.loads(body)["error"]
        shape = (isinstance(e["message"], str) and e["message"] != "" and "type" in e
                 and "param" in e and "code" in e)
        code_ok = want_code is None or e["code"] == want_code
        param_ok = want_param is None or e["param"] == want_param
    except (ValueError, KeyError, TypeError):
        shape = code_ok = param_ok = False
    return status == want_status and shape and code_ok and param_ok


def parse_sse(body):
    """The events of an SSE body: every event is exactly one "data: ..." line + blank line."""
    text = body.decode("utf-8")
    check(text.endswith("\n\n"), "the stream ends with a blank line")
    events = text.split("\n\n")[:-1]
    check(all(e.startswith("data: ") and "\n" not in e for e in events),
          "every event is one 'data: ' line followed by a blank line")
    return [e[len("data: "):] for e in events]


def main():
    # --ctx-beyond-training: stories260K was trained on 128 tokens, and a context cut to that
    # lets a "long" request end (at about 7,000 tokens/s) before the disconnect below lands.
    srv = Server("-c", "512", "--parallel", "4", "--ctx-beyond-training")
    M = srv.model
    chat = {"model": M, "messages": [{"role": "user", "content": "Tell me a story"}],
            "max_tokens": 24, "temperature": 0}

    # Non-streamed reference, then the same request streamed: the deltas add up to it.
    st, hd, body = curl(srv.base + "/chat/completions", chat)
    ref = json.loads(body)
    check(st == 200 and ref["object"] == "chat.completion", "chat completion: 200")
    check(ref["choices"][0]["message"]["role"] == "assistant", "chat completion: assistant message")
    check(ref["usage"]["completion_tokens"] == 24 and ref["choices"][0]["finish_reason"] == "length",
          "chat completion: usage and finish_reason length")
    check(re.search(r"(?i)^content-type: application/json", hd, re.M) is not None,
          "chat completion: application/json")

    st, hd, body = curl(srv.base + "/chat/completions",
                        dict(chat, stream=True, stream_options={"include_usage": True}), raw=True)
    check(st == 200, "stream: 200")
    check(re.search(r"(?i)^content-type: text/event-stream", hd, re.M) is not None,
          "stream: text/event-stream")
    check(re.search(r"(?i)^transfer-encoding: chunked", hd, re.M) is not None, "stream: chunked")
    check(re.search(r"(?i)^access-control-", hd, re.M) is None, "stream: no CORS headers")
    # --raw keeps the chunked framing: undo it here (size line, data, CRLF).
    payload, rest = b"", body
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        payload += rest[:size]
        check(rest[size:size + 2] == b"\r\n", "chunk %d bytes framed by CRLF" % size)
        rest = rest[size + 2:]
    events = parse_sse(payload)
    check(events[-1] == "[DONE]", "stream: last event is [DONE]")
    chunks = [json.loads(e) for e in events[:-1]]
    check(all(c["object"] == "chat.completion.chunk" for c in chunks), "stream: chunk objects")
    check(len({c["id"] for c in chunks}) == 1, "stream: one id for every chunk")
    check(chunks[0]["choices"][0]["delta"].get("role") == "assistant", "stream: first has role")
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    check(text == ref["choices"][0]["message"]["content"], "stream: deltas equal the reply")
    finals = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    check(len(finals) == 1 and finals[0]["choices"][0]["finish_reason"] == "length",
          "stream: one finish chunk")
    check(chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 24,
          "stream: usage chunk last (include_usage)")

    comp = {"model": M, "prompt": "Once upon a time", "max_tokens": 16, "temperature": 0}
    st, _, body = curl(srv.base + "/completions", comp)
    cref = json.loads(body)
    check(st == 200 and cref["object"] == "text_completion", "completion: 200")
    st, _, body = curl(srv.base + "/completions", dict(comp, stream=True))
    ev = parse_sse(body)
    ctext = "".join(json.loads(e)["choices"][0]["text"] for e in ev[:-1])
    check(ev[-1] == "[DONE]" and ctext == cref["choices"][0]["text"],
          "completion stream: texts equal the reply, then [DONE]")
    ids = json.loads(curl(srv.root + "/tokenize", {"content": "Once upon a time"})[2])["tokens"]
    st, _, body = curl(srv.base + "/completions", dict(comp, prompt=[1] + ids))
    check(st == 200 and json.loads(body)["choices"][0]["text"] == cref["choices"][0]["text"],
          "completion: token-id prompt gives the same text")
    back = json.loads(curl(srv.root + "/detokenize", {"tokens": ids})[2])["content"]
    check(back == "Once upon a time", "tokenize/detokenize round trip")
    st, _, body = curl(srv.base + "/completions", dict(comp, stop=[cref["choices"][0]["text"][4:9]]))
    check(st == 200 and json.loads(body)["choices"][0]["finish_reason"] == "stop"
          and json.loads(body)["choices"][0]["text"] == cref["choices"][0]["text"][:4],
          "completion: stop string cuts the text, finish_reason stop")

    # logprobs: one entry per completion token; greedy picks the most likely one; streamed
    # chunks carry the same entries as the body; the legacy endpoint's parallel lists.
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(chat, logprobs=True, top_logprobs=3))
    lref = json.loads(body)
    content = lref["choices"][0]["logprobs"]["content"] if st == 200 else []
    check(st == 200 and lref["choices"][0]["message"]["content"]
          == ref["choices"][0]["message"]["content"], "logprobs: the same greedy reply")
    check(len(content) == 24, "logprobs: an entry per completion token")
    check(all(e["logprob"] <= 0 and len(e["top_logprobs"]) == 3
              and e["top_logprobs"][0]["token"] == e["token"]
              and abs(e["top_logprobs"][0]["logprob"] - e["logprob"]) < 1e-6
              and all(a["logprob"] >= b["logprob"]
                      for a, b in zip(e["top_logprobs"], e["top_logprobs"][1:]))
              and bytes(e["bytes"]).decode("utf-8", "replace") == e["token"]
              for e in content), "logprobs: greedy token first, alternatives in order, bytes")
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(chat, logprobs=True, top_logprobs=3, stream=True))
    sev = [json.loads(e) for e in parse_sse(body)[:-1]]
    streamed = [x for c in sev if c["choices"] and c["choices"][0]["logprobs"]
                for x in c["choices"][0]["logprobs"]["content"]]
    check(st == 200 and streamed == content, "logprobs stream: the same entries as the body")
    st, _, body = curl(srv.base + "/completions", dict(comp, logprobs=2))
    leg = json.loads(body)["choices"][0]["logprobs"] if st == 200 else {}
    check(st == 200 and len(leg.get("tokens", [])) == 16
          and len(leg["token_logprobs"]) == 16 and len(leg["text_offset"]) == 16
          and all(len(t) <= 2 for t in leg["top_logprobs"])
          and leg["text_offset"][0] == 0 and leg["text_offset"] == sorted(leg["text_offset"]),
          "completion logprobs: parallel lists, offsets from 0 upwards")
    check(error_shape(*curl(srv.base + "/completions", dict(comp, logprobs=6))[::2], 400, None,
                      "logprobs"), "completion logprobs 6: 400")
    check(error_shape(*curl(srv.base + "/chat/completions", dict(chat, top_logprobs=2))[::2], 400,
                      None, "top_logprobs"), "top_logprobs without logprobs: 400")

    # n choices: each a request of its own (seeds seed, seed + 1, ...), the prompt counted once.
    st, _, body = curl(srv.base + "/chat/completions", dict(chat, n=3))
    three = json.loads(body)
    check(st == 200 and [c["index"] for c in three["choices"]] == [0, 1, 2]
          and all(c["message"]["content"] == ref["choices"][0]["message"]["content"]
                  for c in three["choices"]),
          "n=3 greedy: three choices, each the greedy reply")
    check(three["usage"]["completion_tokens"] == 72
          and three["usage"]["prompt_tokens"] == ref["usage"]["prompt_tokens"],
          "n=3: completion tokens add up, the prompt counts once")
    sampled = dict(chat, temperature=1.0, seed=5, n=2)
    st, _, body = curl(srv.base + "/chat/completions", sampled)
    two = json.loads(body)
    st2, _, body = curl(srv.base + "/chat/completions", dict(sampled, n=1, seed=6))
    single = json.loads(body)
    check(st == 200 and st2 == 200 and two["choices"][1]["message"]["content"]
          == single["choices"][0]["message"]["content"],
          "n=2, seed 5: the second choice is the reply with seed 6")
    st, _, body = curl(srv.base + "/chat/completions", dict(sampled, stream=True))
    sc = [json.loads(e) for e in parse_sse(body)[:-1]]
    per = {0: "", 1: ""}
    for c in sc:
        for ch in c["choices"]:
            per[ch["index"]] += ch["delta"].get("content", "")
    roles = sorted(ch["index"] for c in sc for ch in c["choices"] if ch["delta"].get("role"))
    ends = sorted(ch["index"] for c in sc for ch in c["choices"] if ch["finish_reason"])
    check(st == 200 and per[0] == two["choices"][0]["message"]["content"]
          and per[1] == two["choices"][1]["message"]["content"] and roles == [0, 1]
          and ends == [0, 1], "n=2 stream: per-index deltas equal the body's choices")
    st, _, body = curl(srv.base + "/completions", dict(comp, n=2, logprobs=1))
    cc = json.loads(body)["choices"] if st == 200 else []
    check(len(cc) == 2 and all(c["text"] == cref["choices"][0]["text"]
                               and len(c["logprobs"]["tokens"]) == 16 for c in cc),
          "completion n=2 with logprobs: both greedy, each with its lists")

    # A batch of prompts: each prompt's n choices in turn, every prompt counted in usage.
    st, _, body = curl(srv.base + "/completions", dict(comp, prompt=["Once upon a time", "The dog"],
                                                       n=2))
    bat = json.loads(body)
    st2, _, body = curl(srv.base + "/completions", dict(comp, prompt="The dog"))
    dog = json.loads(body)
    texts = [c["text"] for c in bat["choices"]] if st == 200 else []
    check(st2 == 200 and texts == [cref["choices"][0]["text"]] * 2 + [dog["choices"][0]["text"]] * 2
          and [c["index"] for c in bat["choices"]] == [0, 1, 2, 3],
          "completion batch of 2 prompts, n=2: each prompt's greedy reply twice, in order")
    check(bat["usage"]["prompt_tokens"] == cref["usage"]["prompt_tokens"]
          + dog["usage"]["prompt_tokens"] and bat["usage"]["completion_tokens"] == 64,
          "completion batch: both prompts counted once, four completions")

    # Predicted outputs: the reply drafted from the prediction, the same greedy text either way;
    # a right prediction is mostly accepted, a wrong one rejected.
    reply = ref["choices"][0]["message"]["content"]
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(chat, prediction={"type": "content", "content": reply}))
    good = json.loads(body)
    gd = good.get("usage", {}).get("completion_tokens_details", {})
    check(st == 200 and good["choices"][0]["message"]["content"] == reply
          and gd.get("accepted_prediction_tokens", 0) >= 12,
          "prediction = the reply: same text, %s of 24 tokens accepted"
          % gd.get("accepted_prediction_tokens"))
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(chat, prediction={"type": "content", "content": "zzz qqq " * 8}))
    bad = json.loads(body)
    check(st == 200 and bad["choices"][0]["message"]["content"] == reply,
          "a wrong prediction: the same text")

    # logit_bias: +100 on one token makes a greedy reply that token over and over.
    tid = json.loads(curl(srv.root + "/tokenize", {"content": " the"})[2])["tokens"][-1]
    st, _, body = curl(srv.base + "/completions",
                       dict(comp, max_tokens=5, logprobs=0, logit_bias={str(tid): 100}))
    forced = json.loads(body)["choices"][0]["logprobs"]["tokens"] if st == 200 else []
    check(len(forced) == 5 and len(set(forced)) == 1, "logit_bias +100: one token, five times")
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, logit_bias={"abc": 1}))[::2], 400, None, "logit_bias"),
          "logit_bias with a non-id key: 400")

    # response_format json_object: the reply is one JSON object (or, cut by max_tokens, the
    # start of one), streamed or not; a bias toward "}" closes it at once with finish "stop".
    jchat = dict(chat, max_tokens=120, temperature=1.0, seed=3,
                 response_format={"type": "json_object"})
    st, _, body = curl(srv.base + "/chat/completions", jchat)
    jr = json.loads(body)["choices"][0] if st == 200 else {}
    content, finish = jr.get("message", {}).get("content", ""), jr.get("finish_reason")
    if finish == "stop":
        check(isinstance(json.loads(content), dict), "json_object: a complete object")
    else:
        check(finish == "length" and content.startswith("{"),
              "json_object: the start of an object, cut by max_tokens (%r)" % content[:40])
    st, _, body = curl(srv.base + "/chat/completions", dict(jchat, stream=True))
    chunks = [json.loads(e) for e in parse_sse(body) if e != "[DONE]"]
    streamed = "".join((c["choices"][0]["delta"].get("content") or "")
                       for c in chunks if c.get("choices"))
    check(st == 200 and streamed == content, "json_object streamed: the same text")
    close = json.loads(curl(srv.root + "/tokenize", {"content": "{}"})[2])["tokens"][-1]
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(jchat, logit_bias={str(close): 100}))
    jr = json.loads(body)["choices"][0] if st == 200 else {}
    check(jr.get("message", {}).get("content") == "{}" and jr.get("finish_reason") == "stop",
          "json_object with a bias toward '}': {} and finish_reason stop")

    # response_format json_schema: {"ok": boolean} required, nothing else.
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
              "additionalProperties": False}
    st, _, body = curl(srv.base + "/chat/completions",
                       dict(jchat, response_format={"type": "json_schema", "json_schema": {
                           "name": "answer", "schema": schema, "strict": True}}))
    jr = json.loads(body)["choices"][0] if st == 200 else {}
    content, finish = jr.get("message", {}).get("content", ""), jr.get("finish_reason")
    if finish == "stop":
        obj = json.loads(content)
        check(list(obj) == ["ok"] and isinstance(obj["ok"], bool),
              "json_schema: an object with a boolean 'ok' and nothing else (%r)" % content)
    else:
        check(finish == "length" and content.startswith("{") and "}" not in content,
              "json_schema: the start of the object, cut by max_tokens (%r)" % content[:40])

    models = json.loads(curl(srv.base + "/models")[2])
    check(models["object"] == "list" and models["data"][0]["id"] == M, "/v1/models lists the model")
    check(error_shape(*curl(srv.base + "/models/nope")[::2], 404, "model_not_found"),
          "/v1/models/unknown: 404")

    # Errors: OpenAI's shape and status codes.
    check(error_shape(*curl(srv.base + "/chat/completions", "{not json")[::2], 400),
          "bad JSON: 400")
    check(error_shape(*curl(srv.base + "/chat/completions", "[1,2]")[::2], 400), "not an object: 400")
    check(error_shape(*curl(srv.base + "/chat/completions", dict(chat, model="gpt-4"))[::2], 404,
                      "model_not_found", "model"), "unknown model: 404")
    check(error_shape(*curl(srv.base + "/chat/completions", dict(chat, temperature=3))[::2], 400,
                      None, "temperature"), "temperature 3: 400 naming the parameter")
    check(error_shape(*curl(srv.base + "/chat/completions", dict(chat, n=17))[::2], 400, None,
                      "n"), "n=17: 400")
    # Members of the wrong type inside objects: 400s, not the 500 of a thrown type error.
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, messages=[{"role": "user",
                                                  "content": [{"type": 5, "text": "x"}]}]))[::2],
                      400, None, "messages[0].content"), "a content part with type 5: 400")
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, prediction={"type": 5, "content": "x"}))[::2], 400, None,
                      "prediction"), "a prediction with type 5: 400")
    check(error_shape(*curl(srv.root + "/tokenize", {"content": "x", "add_special": "yes"})[::2],
                      400, None, "add_special"), "/tokenize with add_special \"yes\": 400")
    check(error_shape(*curl(srv.base + "/chat/completions", dict(chat, messages=[]))[::2], 400,
                      None, "messages"), "no messages: 400")
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, messages=[{"role": "tool", "content": "x"}]))[::2], 400),
          "tool role: 400")
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, tools=[{"type": "function",
                                               "function": {"name": "f"}}]))[::2],
                      400, "unsupported_parameter", "tools"), "tools: 400, not ignored")
    check(error_shape(*curl(srv.base + "/chat/completions",
                            dict(chat, response_format={"type": "json_schema", "json_schema": {
                                "name": "x", "schema": {"type": "object", "properties": {
                                    "a": {"type": "string", "pattern": "^x"}}}}}))[::2],
                      400, "unsupported_parameter", "response_format.json_schema.schema"),
          "a json_schema with 'pattern': 400 naming the schema, not ignored")
    check(error_shape(*curl(srv.base + "/completions", dict(comp, prompt=[1, 10 ** 9]))[::2], 400,
                      None, "prompt"), "token id outside the vocabulary: 400")
    check(error_shape(*curl(srv.base + "/completions", dict(comp, prompt="word " * 600))[::2], 400,
                      "context_length_exceeded"), "prompt longer than the context: 400")
    with open("/tmp/hearth-sse-big.json", "w") as f:
        f.write('{"model": "%s", "prompt": "%s"}' % (M, "a" * (2 << 20)))
    check(error_shape(*curl(srv.base + "/completions", data_file="/tmp/hearth-sse-big.json")[::2],
                      413), "2 MiB body: 413")
    check(error_shape(*curl(srv.root + "/nope")[::2], 404, "unknown_url"), "unknown URL: 404")
    st, hd, _ = curl(srv.base + "/chat/completions", method="OPTIONS")
    check(re.search(r"(?i)^access-control-", hd, re.M) is None, "CORS off: no preflight headers")

    # A client that disconnects mid-stream cancels its sequence and frees its blocks.
    before = health(srv)
    p = subprocess.Popen(["curl", "-sS", "-N", srv.base + "/completions", "-H",
                          "Content-Type: application/json", "--data-binary",
                          json.dumps({"model": M, "prompt": "Once", "max_tokens": 500,
                                      "stream": True})], stdout=subprocess.PIPE)
    first = p.stdout.readline()
    p.kill()
    p.wait()
    check(first.startswith(b"data: {"), "disconnect: a first event arrived")
    for _ in range(100):
        h = health(srv)
        if h["running"] == 0 and h["requests_cancelled"] > before["requests_cancelled"]:
            break
        time.sleep(0.05)
    check(h["requests_cancelled"] == before["requests_cancelled"] + 1, "disconnect: cancelled")
    check(h["running"] == 0 and h["kv_blocks_free"] == h["kv_blocks"],
          "disconnect: sequence gone, every KV block free")
    check(h["active_requests"] == 0, "disconnect: no active request left")
    check(srv.stop() == 0, "SIGTERM: clean exit")

    # A full queue: one running slot and no queue; a second request gets 429.
    srv = Server("-c", "4096", "--parallel", "1", "--queue", "0", "--ctx-beyond-training")
    p = subprocess.Popen(["curl", "-sS", "-N", srv.base + "/completions", "-H",
                          "Content-Type: application/json", "--data-binary",
                          json.dumps({"model": srv.model, "prompt": "Once", "max_tokens": 4000,
                                      "stream": True})], stdout=subprocess.PIPE)
    p.stdout.readline()
    check(error_shape(*curl(srv.base + "/completions", dict(comp, model=srv.model))[::2], 429,
                      "rate_limit_exceeded"), "queue full: 429")
    p.kill()
    p.wait()
    srv.stop()

    # A key: required on every endpoint but /health, compared exactly.
    srv = Server("--api-key", "sk-test-123", "--cors-origin", "http://localhost:3000")
    check(error_shape(*curl(srv.base + "/models")[::2], 401, "invalid_api_key"), "no key: 401")
    check(error_shape(*curl(srv.base + "/models", headers=["Authorization: Bearer sk-test-12"])[::2],
                      401, "invalid_api_key"), "wrong key (prefix): 401")
    check(error_shape(*curl(srv.base + "/models",
                            headers=["Authorization: Bearer sk-test-1234"])[::2], 401),
          "wrong key (longer): 401")
    check(curl(srv.base + "/models", headers=["Authorization: Bearer sk-test-123"])[0] == 200,
          "right key: 200")
    check(curl(srv.root + "/health")[0] == 200, "/health needs no key")
    st, hd, _ = curl(srv.base + "/models", method="OPTIONS")
    check(st == 204 and "Access-Control-Allow-Origin: http://localhost:3000" in hd,
          "--cors-origin: preflight answered")
    srv.stop()

    # --lookup: speculative decoding by prompt lookup; greedy text is the same as without it
    # (a request may turn it off), the usage and /health count drafted and accepted tokens.
    srv = Server("-c", "512", "--parallel", "2", "--lookup", "--draft-max", "6")
    story = {"model": srv.model, "prompt": "Once upon a time, there was a little girl named Lily. "
             "She loved to play outside in the park. Once upon a time, there was a little girl",
             "max_tokens": 48, "temperature": 0}
    st, _, on = curl(srv.base + "/completions", story)
    st2, _, off = curl(srv.base + "/completions", dict(story, speculative="off"))
    on, off = json.loads(on), json.loads(off)
    check(st == 200 and st2 == 200 and on["choices"][0]["text"] == off["choices"][0]["text"],
          "--lookup: the same greedy text as \"speculative\": \"off\"")
    det = on["usage"].get("completion_tokens_details", {})
    check(det.get("accepted_prediction_tokens", 0) > 0 and "rejected_prediction_tokens" in det
          and "completion_tokens_details" not in off["usage"],
          "--lookup: usage counts accepted and rejected drafted tokens")
    spec = health(srv).get("speculative", {})
    check(spec.get("default") == "lookup" and spec.get("accepted_tokens", 0) > 0
          and 0 < spec.get("acceptance_rate", 0) <= 1, "/health: acceptance of drafted tokens")
    st, _, body = curl(srv.base + "/completions", dict(story, speculative="draft"))
    check(error_shape(st, body, 400, None, "speculative"), "speculative \"draft\": 400")
    srv.stop()

    # Another address without a key is refused before anything listens.
    r = subprocess.run([CLI, "serve", "-m", MODEL, "--host", "0.0.0.0", "--port", "0"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "API key" in r.stderr, "0.0.0.0 without a key: refused")

    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
