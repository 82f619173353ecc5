// The official `openai` npm client against `hearth-cli serve`: lists models, completes (with
// logprobs, n = 2 and JSON mode too), streams,
// runs 8 concurrent streams (each must equal its request run alone: greedy decoding is the
// same batched), disconnects mid-stream (the sequence is cancelled), and checks the errors the
// client raises (no key, wrong key, bad JSON, unknown model, huge body).
// Usage: node test.mjs HEARTH_CLI MODEL
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';

const [cli, modelPath] = process.argv.slice(2);
const KEY = 'sk-hearth-test-key';
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

const server = spawn(cli, ['serve', '-m', modelPath, '--port', '0', '--api-key', KEY,
  '--parallel', '8', '-c', '2048', '-t', '2', '--ctx-beyond-training'],
  { stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise((resolve, reject) => {
  createInterface({ input: server.stdout }).once('line', resolve);
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
const m = /listening on (http:\/\/\S+\/v1) \(model ([^,]+),/.exec(line);
if (!m) throw new Error(`unexpected first line: ${line}`);
const [, baseURL, modelId] = m;
const root = baseURL.slice(0, -'/v1'.length);
const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 60000 });
const health = async () => (await fetch(`${root}/health`)).json();

async function expectError(what, status, fn) {
  try {
    await fn();
    check(false, `${what}: no error raised`);
  } catch (e) {
    check(e instanceof OpenAI.APIError && e.status === status && typeof e.message === 'string',
      `${what}: ${e.constructor.name} ${e.status} (want ${status})`);
    return e;
  }
}

try {
  const models = await client.models.list();
  check(models.data.length === 1 && models.data[0].id === modelId, `models.list: ${modelId}`);

  const ask = (content, extra = {}) => ({
    model: modelId, messages: [{ role: 'user', content }], max_tokens: 20, temperature: 0, ...extra,
  });
  const chat = await client.chat.completions.create(ask('Tell me about a dog.'));
  const reply = chat.choices[0].message.content;
  check(chat.object === 'chat.completion' && reply.length > 0, `chat: "${reply.slice(0, 40)}…"`);
  check(chat.usage.completion_tokens === 20 && chat.usage.prompt_tokens > 0, 'chat: usage');

  const comp = await client.completions.create({
    model: modelId, prompt: 'Once upon a time', max_tokens: 12, temperature: 0, seed: 7,
  });
  check(comp.choices[0].text.length > 0 && comp.choices[0].finish_reason === 'length',
    'completions.create');

  // logprobs: an entry per token, the greedy token the most likely of its alternatives.
  const lp = await client.chat.completions.create(
    ask('Tell me about a dog.', { logprobs: true, top_logprobs: 2 }));
  const entries = lp.choices[0].logprobs?.content ?? [];
  check(lp.choices[0].message.content === reply && entries.length === 20 &&
    entries.every((e) => e.logprob <= 0 && e.top_logprobs.length === 2 &&
      e.top_logprobs[0].token === e.token && e.top_logprobs[0].logprob >= e.top_logprobs[1].logprob),
  'chat logprobs: 20 entries, greedy token first');

  // JSON mode: the reply is an object, or (cut by max_tokens) the start of one.
  const js = await client.chat.completions.create(
    ask('Tell me about a dog.', { response_format: { type: 'json_object' }, max_tokens: 60 }));
  const jc = js.choices[0];
  let isObject = false;
  try { isObject = jc.finish_reason === 'stop' && typeof JSON.parse(jc.message.content) === 'object'; } catch { }
  check(isObject || (jc.finish_reason === 'length' && jc.message.content.startsWith('{')),
    `chat response_format json_object (${jc.finish_reason})`);

  // Structured outputs: a json_schema the reply must follow ({"ok": boolean}, nothing else).
  const ss = await client.chat.completions.create(ask('Tell me about a dog.', {
    max_tokens: 160,
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'answer', strict: true,
        schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'],
          additionalProperties: false },
      },
    },
  }));
  const sc = ss.choices[0];
  let follows = false;
  try {
    const o = JSON.parse(sc.message.content);
    follows = sc.finish_reason === 'stop' && Object.keys(o).join() === 'ok' && typeof o.ok === 'boolean';
  } catch { }
  check(follows || (sc.finish_reason === 'length' && sc.message.content.startsWith('{') &&
    !sc.message.content.includes('}')), `chat response_format json_schema (${sc.finish_reason})`);

  // n choices: greedy, so each is the reply.
  const two = await client.chat.completions.create(ask('Tell me about a dog.', { n: 2 }));
  check(two.choices.length === 2 && two.choices.every((c, i) => c.index === i &&
    c.message.content === reply) && two.usage.completion_tokens === 40, 'chat n=2: two replies');

  // Streaming: the deltas add up to the non-streamed reply.
  const stream = await client.chat.completions.create(
    ask('Tell me about a dog.', { stream: true, stream_options: { include_usage: true } }));
  let text = '';
  let usage = null;
  let finish = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const c of chunk.choices) {
      text += c.delta?.content ?? '';
      if (c.finish_reason) finish = c.finish_reason;
    }
  }
  check(text === reply, 'stream: same text as the non-streamed reply');
  check(finish === 'length' && usage?.completion_tokens === 20, 'stream: finish_reason and usage');

  // Eight concurrent streams, each compared with the same request run alone.
  const prompts = ['a cat', 'the sea', 'a red ball', 'a big tree', 'the sun', 'a small boat',
    'a birthday', 'the park'].map((p) => `Write about ${p}.`);
  const alone = [];
  for (const p of prompts) {
    alone.push((await client.chat.completions.create(ask(p))).choices[0].message.content);
  }
  const together = await Promise.all(prompts.map(async (p) => {
    const s = await client.chat.completions.create(ask(p, { stream: true }));
    let t = '';
    for await (const chunk of s) t += chunk.choices[0]?.delta?.content ?? '';
    return t;
  }));
  check(together.every((t, i) => t === alone[i]),
    '8 concurrent streams: each equals its request alone');

  // Disconnect mid-stream: the server cancels the sequence and frees its blocks.
  const before = await health();
  const controller = new AbortController();
  const long = await client.completions.create(
    // 2,000 tokens: stories260K decodes about 7,000 a second, and its training context (128)
    // would end the request before the abort lands (hence --ctx-beyond-training above).
    { model: modelId, prompt: 'Once', max_tokens: 2000, stream: true },
    { signal: controller.signal });
  let got = 0;
  try {
    for await (const chunk of long) {
      got += chunk.choices.length;
      if (got >= 2) controller.abort();
    }
  } catch (e) {
    check(e instanceof OpenAI.APIUserAbortError, 'disconnect: the client aborted');
  }
  let h = await health();
  for (let i = 0; i < 100 && !(h.running === 0 && h.requests_cancelled > before.requests_cancelled); i++) {
    await new Promise((r) => setTimeout(r, 50));
    h = await health();
  }
  check(h.requests_cancelled === before.requests_cancelled + 1 && h.running === 0 &&
    h.kv_blocks_free === h.kv_blocks, 'disconnect: sequence cancelled, blocks freed');

  // Errors.
  const noKey = new OpenAI({ apiKey: 'unused', baseURL, maxRetries: 0,
    defaultHeaders: { Authorization: null } });
  await expectError('no key', 401, () => noKey.models.list());
  const wrong = new OpenAI({ apiKey: 'sk-hearth-test-kez', baseURL, maxRetries: 0 });
  await expectError('wrong key', 401, () => wrong.chat.completions.create(ask('hi')));
  await expectError('unknown model', 404,
    () => client.chat.completions.create({ ...ask('hi'), model: 'gpt-4o' }));
  await expectError('bad parameter', 400,
    () => client.chat.completions.create(ask('hi', { temperature: 7 })));
  await expectError('huge body', 413,
    () => client.completions.create({ model: modelId, prompt: 'x'.repeat(3 << 20) }));
  // The client always sends valid JSON; a raw request checks that bad JSON is a 400 in shape.
  const bad = await fetch(`${baseURL}/chat/completions`, {
    method: 'POST', body: '{"model": ', headers: {
      Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
  });
  const badBody = await bad.json();
  check(bad.status === 400 && badBody.error?.type === 'invalid_request_error', 'bad JSON: 400');
} catch (e) {
  check(false, `unexpected error: ${e?.stack ?? e}`);
} finally {
  server.kill('SIGTERM');
}
console.log(`${failures} failures`);
process.exit(failures ? 1 : 0);
