// peer.mjs is a worker built on the official iii Node SDK (iii-sdk 0.22.1),
// driven by the Go interop tests in this directory.
//
// It connects to process.env.III_URL. Commands arrive as JSON lines on
// stdin; events leave as JSON lines on stdout. Everything the SDK prints
// goes to stderr, which the Go side keeps and shows when a test fails.
// End of stdin shuts the SDK down and exits.
//
// Commands ({"op": …, "ref": …, …}); each is answered by an event with the
// same ref: register_function, call, void, register_trigger,
// unregister_trigger, provide_trigger_type, fire, frames, shutdown. Calls
// of the peer's functions and of its trigger type's handler are reported
// as invoked, provider_register and provider_unregister events; any
// failure of the peer itself as peer_error.
//
// Environment: PEER_NAME (worker name), PEER_DESCRIPTION (optional),
// PEER_OTEL ("on" leaves OpenTelemetry on; anything else turns it off for
// this instance), PEER_TIMEOUT_MS (default invocation timeout).

import { createRequire } from 'node:module';
import * as os from 'node:os';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { registerWorker, TriggerAction } from 'iii-sdk';

const emit = (event) => process.stdout.write(JSON.stringify(event) + '\n');

for (const level of ['log', 'info', 'debug', 'warn', 'error', 'trace']) {
  console[level] = (...args) => process.stderr.write(`[console.${level}] ${format(...args)}\n`);
}

process.on('unhandledRejection', (err) => emit({ event: 'peer_error', op: 'unhandledRejection', message: String(err?.stack ?? err) }));
process.on('uncaughtException', (err) => emit({ event: 'peer_error', op: 'uncaughtException', message: String(err?.stack ?? err) }));

// The frame tap: the SDK's own WebSocket class (resolved from the SDK's
// location, so it is the same module instance) is wrapped to record a
// summary of every frame in and out, on the worker socket and on /otel.
const sdkRequire = createRequire(createRequire(import.meta.url).resolve('iii-sdk'));
const sdkVersion = sdkRequire('../package.json').version;
const { WebSocket } = sdkRequire('ws');
const frames = [];
const otel = { opened: 0, binaryOut: 0, prefixes: {} };

const socketKind = (ws) => (new URL(ws.url).pathname.replace(/\/+$/, '').endsWith('/otel') ? 'otel' : 'worker');

function summarize(dir, data) {
  let text;
  try {
    text = Buffer.isBuffer(data) ? data.toString('utf8') : typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    const m = JSON.parse(text);
    return {
      dir,
      type: m.type,
      keys: Object.keys(m).sort(),
      invocation_id: m.invocation_id,
      function_id: m.function_id,
      id: m.id,
      trigger_type: m.trigger_type,
      action: m.action,
      traceparent: m.traceparent,
      baggage: m.baggage,
      previous_worker_id: m.previous_worker_id,
      reattach_token: m.reattach_token,
      data_is_null: m.data === null,
      has_result: Object.hasOwn(m, 'result'),
      error: m.error,
    };
  } catch {
    return { dir, type: '<not json>', bytes: text?.length ?? 0 };
  }
}

const origSend = WebSocket.prototype.send;
WebSocket.prototype.send = function send(data, ...rest) {
  if (socketKind(this) === 'otel') {
    otel.binaryOut++;
    const prefix = Buffer.from(data).subarray(0, 4).toString('latin1');
    otel.prefixes[prefix] = (otel.prefixes[prefix] ?? 0) + 1;
  } else {
    frames.push(summarize('out', data));
  }
  return origSend.call(this, data, ...rest);
};
const origEmit = WebSocket.prototype.emit;
WebSocket.prototype.emit = function tappedEmit(name, ...args) {
  const kind = this.url ? socketKind(this) : 'worker';
  if (name === 'message' && kind === 'worker') frames.push(summarize('in', args[0]));
  if (name === 'open' && kind === 'otel') otel.opened++;
  return origEmit.call(this, name, ...args);
};

const otelOn = process.env.PEER_OTEL === 'on';
const name = process.env.PEER_NAME || 'node-peer';
const iii = registerWorker(process.env.III_URL, {
  workerName: name,
  workerDescription: process.env.PEER_DESCRIPTION || undefined,
  invocationTimeoutMs: Number(process.env.PEER_TIMEOUT_MS || 5000),
  enableMetricsReporting: otelOn, // without OTel it only warns that it cannot
  ...(otelOn ? {} : { otel: { enabled: false } }),
});

// Function behaviours, chosen by the register_function command.
const behaviours = {
  echo: (data, metadata) => (metadata === undefined ? { data } : { data, metadata }),
  record: () => undefined,
  null: () => null,
  hang: () => new Promise(() => {}),
  throw: (_data, _metadata, cmd) => {
    throw new Error(cmd.message);
  },
  throw_string: (_data, _metadata, cmd) => {
    throw cmd.message; // eslint-disable-line no-throw-literal
  },
};

const triggers = new Map(); // ref → Trigger handle
const subscribers = new Map(); // trigger type → Map(id → TriggerConfig)

function errorInfo(err) {
  if (!(err instanceof Error)) return { name: typeof err, message: String(err) };
  return {
    name: err.name,
    message: err.message,
    code: err.code,
    function_id: err.function_id,
    stacktrace: err.stacktrace,
  };
}

const commands = {
  register_function(cmd) {
    const behave = behaviours[cmd.kind];
    if (!behave) throw new Error(`unknown function kind ${cmd.kind}`);
    iii.registerFunction(
      cmd.id,
      async (data, metadata) => {
        emit({ event: 'invoked', function_id: cmd.id, data, has_metadata: metadata !== undefined, metadata });
        return behave(data, metadata, cmd);
      },
      cmd.description ? { description: cmd.description } : undefined,
    );
    emit({ event: 'function_registered', ref: cmd.ref, id: cmd.id });
  },

  async call(cmd) {
    const request = { function_id: cmd.function_id, timeoutMs: cmd.timeout_ms };
    if (Object.hasOwn(cmd, 'payload')) request.payload = cmd.payload;
    if (Object.hasOwn(cmd, 'metadata')) request.metadata = cmd.metadata;
    try {
      const result = await iii.trigger(request);
      emit({ event: 'result', ref: cmd.ref, ok: true, has_result: result !== undefined, result_type: typeof result, result });
    } catch (err) {
      emit({ event: 'result', ref: cmd.ref, ok: false, error: errorInfo(err) });
    }
  },

  async void(cmd) {
    const request = { function_id: cmd.function_id, payload: cmd.payload, action: TriggerAction.Void() };
    if (Object.hasOwn(cmd, 'metadata')) request.metadata = cmd.metadata;
    const returned = await iii.trigger(request);
    emit({ event: 'void_sent', ref: cmd.ref, returned_undefined: returned === undefined });
  },

  register_trigger(cmd) {
    const input = { type: cmd.type, function_id: cmd.function_id, config: cmd.config };
    if (Object.hasOwn(cmd, 'metadata')) input.metadata = cmd.metadata;
    triggers.set(cmd.ref, iii.registerTrigger(input));
    emit({ event: 'trigger_registered', ref: cmd.ref });
  },

  unregister_trigger(cmd) {
    triggers.get(cmd.trigger_ref).unregister();
    triggers.delete(cmd.trigger_ref);
    emit({ event: 'trigger_unregistered', ref: cmd.ref });
  },

  provide_trigger_type(cmd) {
    const subs = new Map();
    subscribers.set(cmd.id, subs);
    iii.registerTriggerType(
      { id: cmd.id, description: cmd.description },
      {
        async registerTrigger(config) {
          subs.set(config.id, config);
          emit({ event: 'provider_register', trigger_type: cmd.id, ...config, has_metadata: config.metadata !== undefined });
        },
        async unregisterTrigger(config) {
          subs.delete(config.id);
          emit({ event: 'provider_unregister', trigger_type: cmd.id, ...config, has_metadata: config.metadata !== undefined });
        },
      },
    );
    emit({ event: 'trigger_type_registered', ref: cmd.ref, id: cmd.id });
  },

  // fire calls every current subscriber's function (void) with the payload
  // and the binding's metadata, as a provider does.
  async fire(cmd) {
    const subs = [...(subscribers.get(cmd.trigger_type)?.values() ?? [])];
    for (const sub of subs) {
      const request = { function_id: sub.function_id, payload: cmd.payload, action: TriggerAction.Void() };
      if (sub.metadata !== undefined) request.metadata = sub.metadata;
      await iii.trigger(request);
    }
    emit({ event: 'fired', ref: cmd.ref, count: subs.length });
  },

  // shutdown stops the SDK (the socket closes) but keeps the process,
  // so the test can still read its events.
  async shutdown(cmd) {
    await iii.shutdown();
    emit({ event: 'shut_down', ref: cmd.ref });
  },

  frames(cmd) {
    emit({ event: 'frames', ref: cmd.ref, frames, otel });
  },
};

emit({
  event: 'ready',
  name,
  pid: process.pid,
  platform: os.platform(),
  release: os.release(),
  arch: os.arch(),
  sdk_version: sdkVersion,
  otel: otelOn,
});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', async (line) => {
  if (line.trim() === '') return;
  let cmd;
  try {
    cmd = JSON.parse(line);
    const run = commands[cmd.op];
    if (!run) throw new Error(`unknown op ${cmd.op}`);
    await run(cmd);
  } catch (err) {
    emit({ event: 'peer_error', op: cmd?.op, ref: cmd?.ref, message: String(err?.stack ?? err) });
  }
});
lines.on('close', async () => {
  try {
    await iii.shutdown();
  } finally {
    emit({ event: 'exit' });
    process.exit(0);
  }
});
