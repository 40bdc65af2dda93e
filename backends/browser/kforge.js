// kernel-forge's page: a small set of WebGPU primitives that Python drives over a
// WebSocket to the loopback server that served this page (backends/browser/_context.py).
//
// Python decides everything: which buffers exist and their usages, the binding type of
// every layout entry, every bound range, what runs in which order and how it is timed.
// This page carries it out and reports WebGPU's own errors (Tint's compilation messages,
// validation errors caught by error scopes, device loss) for Python to type.
//
// Message from Python: u32 (little-endian) length of a JSON header, the header
// {commands: [{op, ...}]}, then the bytes of the commands that carry `inline` data, in
// order. Reply: u32 length, JSON {results: [...], error?: {...}}, then the bytes of the
// results that carry `inline` data. Commands run one after another; the first failure
// stops the message and is reported with its index.
"use strict";

const base = location.pathname.replace(/[^/]*$/, "");  // "/<secret>/"
const state = { device: null, lost: null, objects: new Map(), ws: null };
window.kforge = state;  // for fault-injection tests (device.destroy())

class Failure extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.kind = kind;        // compile | validation | out-of-memory | internal | lost | page
    this.details = details;
  }
}

function object(id) {
  const found = state.objects.get(id);
  if (found === undefined) throw new Failure("page", `no object ${id} on the page`);
  return found;
}

function usageFlags(names) {
  return names.reduce((flags, name) => flags | GPUBufferUsage[name.toUpperCase().replaceAll("-", "_")], 0);
}

// Error scopes around one command: pushed before it runs; popped (all three at once,
// so that one round trip to the GPU process answers them) only at the end of the
// message, so that a message of many commands waits for the GPU process once.
const SCOPES = ["validation", "out-of-memory", "internal"];

function pushScopes() {
  for (const filter of [...SCOPES].reverse()) state.device.pushErrorScope(filter);
}

function popScopes() {
  return Promise.all(SCOPES.map(() => state.device.popErrorScope()));
}

function lostFailure() {
  return new Failure("lost", `the WebGPU device was lost (${state.lost.reason}): ${state.lost.message}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// `sink(bytes)` on the first `size` bytes of `staging`, mapped for reading (and
// unmapped after: sink copies what it keeps).
async function mappedBytes(staging, size, sink) {
  const span = (size + 3) & ~3;
  await staging.mapAsync(GPUMapMode.READ, 0, span);
  try {
    return await sink(new Uint8Array(staging.getMappedRange(0, span), 0, size));
  } finally {
    staging.unmap();
  }
}

function copyToStaging(buffer, offset, staging, size) {
  const encoder = state.device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, offset, staging, 0, (size + 3) & ~3);
  state.device.queue.submit([encoder.finish()]);
}

async function post(url, body) {
  const response = await fetch(url, { method: "POST", body });
  if (!response.ok) throw new Failure("page", `posting to ${url}: HTTP ${response.status}`);
}

async function fetched(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Failure("page", `fetching ${url}: HTTP ${response.status}`);
  return new Uint8Array(await (await response.blob()).arrayBuffer());
}

const ops = {
  // An adapter and a device with the optional features asked for (those offered) and
  // every limit at the adapter's maximum.
  async init({ powerPreference, features }) {
    if (!navigator.gpu) throw new Failure("unavailable", "navigator.gpu is missing: WebGPU is disabled in this browser");
    const adapter = await navigator.gpu.requestAdapter({ powerPreference });
    if (!adapter) throw new Failure("unavailable", "navigator.gpu.requestAdapter() found no adapter");
    const requiredLimits = {};
    for (const name in adapter.limits) requiredLimits[name] = adapter.limits[name];
    const requiredFeatures = features.filter((f) => adapter.features.has(f));
    const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
    state.device = device;
    device.lost.then((info) => { state.lost = { reason: info.reason, message: info.message }; });
    const limits = {};
    for (const name in device.limits) limits[name] = device.limits[name];
    const info = adapter.info;
    return {
      info: { vendor: info.vendor, architecture: info.architecture, device: info.device,
              description: info.description, subgroupMinSize: info.subgroupMinSize,
              subgroupMaxSize: info.subgroupMaxSize, isFallbackAdapter: info.isFallbackAdapter },
      adapterFeatures: [...adapter.features], features: [...device.features], limits,
      userAgent: navigator.userAgent,
    };
  },

  createBuffer({ id, size, usage }) {
    state.objects.set(id, state.device.createBuffer({ label: id, size, usage: usageFlags(usage) }));
  },

  // A 2D texture and its view, for a kernel's texture binding: `usage` names
  // GPUTextureUsage flags ("copy-src", "copy-dst", "texture-binding", "storage-binding").
  createTexture({ id, width, height, format, usage }) {
    const flags = usage.reduce(
      (all, name) => all | GPUTextureUsage[name.toUpperCase().replaceAll("-", "_")], 0);
    const texture = state.device.createTexture({
      label: id, size: [width, height, 1], format, usage: flags, dimension: "2d" });
    state.objects.set(id, { texture, view: texture.createView() });
  },

  // A sampler for a kernel's sampler binding (`descriptor`: a GPUSamplerDescriptor).
  createSampler({ id, descriptor }) {
    state.objects.set(id, { sampler: state.device.createSampler({ label: id, ...descriptor }) });
  },

  createQuerySet({ id, count }) {
    state.objects.set(id, state.device.createQuerySet({ type: "timestamp", count }));
  },

  // Destroy (buffers, query sets) or drop (everything else) objects by id.
  release({ ids }) {
    for (const id of ids) {
      const found = state.objects.get(id);
      if (found && typeof found.destroy === "function") found.destroy();
      state.objects.delete(id);
    }
  },

  // `size` bytes at `offset`, from the message (`inline`) or fetched in parts (`gets`:
  // [url, start, size], each part fetched while the one before is written). Queue
  // writes move whole words: a last partial word is merged with the bytes already in
  // the buffer when `keepTail` (read through `staging`), else padded with zeros.
  async write({ buffer, offset, size, gets, keepTail, staging }, inline) {
    const target = object(buffer);
    const parts = gets || [[null, 0, size]];
    let next = gets ? fetched(gets[0][0]) : Promise.resolve(inline);
    let data = null;
    for (let i = 0; i < parts.length; i++) {
      const [, start, length] = parts[i];
      data = await next;
      if (i + 1 < parts.length) next = fetched(parts[i + 1][0]);
      if (data.length !== length) throw new Failure("page", `a write part of ${length} bytes got ${data.length}`);
      const body = length & ~3;
      if (body) state.device.queue.writeBuffer(target, offset + start, data, 0, body);
    }
    const [, start, length] = parts[parts.length - 1];
    const body = length & ~3;
    if (length > body) {  // only the last part may end in a partial word
      const word = new Uint8Array(4);
      if (keepTail) {
        copyToStaging(target, offset + start + body, object(staging), 4);
        await mappedBytes(object(staging), 4, (bytes) => word.set(bytes));
      }
      word.set(data.subarray(body));
      state.device.queue.writeBuffer(target, offset + start + body, word);
    }
  },

  // `size` bytes at `offset`, copied through `staging` (after all earlier work), into
  // the reply (`inline`), or posted in parts (`posts`: [url, start, size]): each part is
  // mapped while the ones before it are still being posted.
  async read({ buffer, offset, size, staging, posts }) {
    const source = object(buffer), stage = object(staging);
    if (!posts) {
      copyToStaging(source, offset, stage, size);
      return mappedBytes(stage, size, (bytes) => ({ inline: bytes.slice() }));
    }
    const uploads = [];
    for (const [url, start, length] of posts) {
      copyToStaging(source, offset + start, stage, length);
      const body = await mappedBytes(stage, length, (bytes) => new Blob([bytes]));
      uploads.push(post(url, body));
    }
    await Promise.all(uploads);
    return {};
  },

  // A shader module (Tint's messages checked), explicit bind group layouts from
  // (binding, type) entries, and a compute pipeline with optional override constants.
  async compile({ id, label, code, entryPoint, layouts, constants }) {
    const device = state.device;
    const module = device.createShaderModule({ label, code });
    const messages = (await module.getCompilationInfo()).messages.map((m) => ({
      type: m.type, line: m.lineNum, column: m.linePos, message: m.message }));
    if (messages.some((m) => m.type === "error")) {
      throw new Failure("compile", "Tint rejected the WGSL", { messages });
    }
    const groups = layouts.map((entries) => device.createBindGroupLayout({
      entries: entries.map(([binding, type]) => (typeof type === "string"
        ? { binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } }
        : { binding, visibility: GPUShaderStage.COMPUTE, ...type })) }));
    const compute = { module, entryPoint };
    if (constants) compute.constants = constants;
    const pipeline = device.createComputePipeline({
      label, layout: device.createPipelineLayout({ bindGroupLayouts: groups }), compute });
    state.objects.set(id, { pipeline, groups });
    return { messages };
  },

  // A bind group of `pipeline`'s layout `group`: entries [binding, buffer, offset, size],
  // or [binding, texture] for a texture binding (its view), [binding, sampler] for a sampler.
  bindGroup({ id, pipeline, group, entries }) {
    state.objects.set(id, state.device.createBindGroup({
      layout: object(pipeline).groups[group],
      entries: entries.map(([binding, buffer, offset, size]) => (offset === undefined
        ? { binding, resource: object(buffer).view ?? object(buffer).sampler }
        : { binding, resource: { buffer: object(buffer), offset, size } })),
    }));
  },

  // The dispatch list `items` ([pipeline, [bind groups], [x, y, z]]) in compute passes,
  // after `copies` ([from, offset, to, offset, bytes]: a launch's own uniform block, a
  // ping-pong buffer's own binding) and before `after` (those bindings copied back):
  // one untimed pass running it `repeat` times, then `samples` passes running it once
  // each, timed by `timing`: "device" (timestamp writes into `queries`, resolved and
  // read through `staging`; submits every `submitEvery` passes), "host"
  // (performance.now() around submit and completion of each pass) or none (no wait).
  async run({ items, copies, after, repeat, samples, timing, queries, resolve, staging,
              submitEvery }) {
    const encoder = state.device.createCommandEncoder();
    for (const copy of copies || []) encodeCopy(encoder, copy);
    const dispatches = items.map(([pipeline, groups, workgroups]) =>
      [object(pipeline).pipeline, groups.map(object), workgroups]);
    if (repeat) encodePass(encoder, dispatches, repeat, null);
    let result = {};
    if (timing === "host") {
      result = await hostTimed(encoder, dispatches, samples);
    } else if (timing === "device") {
      result = await deviceTimed(encoder, dispatches, samples, submitEvery,
                                 object(queries), object(resolve), object(staging));
    } else {
      state.device.queue.submit([encoder.finish()]);
    }
    if (after && after.length) {
      const back = state.device.createCommandEncoder();
      for (const copy of after) encodeCopy(back, copy);
      state.device.queue.submit([back.finish()]);
    }
    return result;
  },

  // Completion: resolves once every submission made so far has finished.
  async wait() {
    await state.device.queue.onSubmittedWorkDone();
  },
};

// One copy of `run`'s lists: [from, offset, to, offset, bytes] between buffers, or
// ["texture-in", buffer, offset, bytesPerRow, texture, row, width, rows] and
// ["texture-out", ...the same] between a buffer's tightly packed rows and a texture.
function encodeCopy(encoder, copy) {
  if (copy[0] === "texture-in" || copy[0] === "texture-out") {
    const [kind, buffer, offset, bytesPerRow, texture, row, width, rows] = copy;
    const linear = { buffer: object(buffer), offset, bytesPerRow };
    const image = { texture: object(texture).texture, origin: [0, row, 0] };
    if (kind === "texture-in") encoder.copyBufferToTexture(linear, image, [width, rows, 1]);
    else encoder.copyTextureToBuffer(image, linear, [width, rows, 1]);
    return;
  }
  const [from, fromOffset, to, toOffset, size] = copy;
  encoder.copyBufferToBuffer(object(from), fromOffset, object(to), toOffset, size);
}

function encodePass(encoder, dispatches, times, timestampWrites) {
  const pass = encoder.beginComputePass(timestampWrites ? { timestampWrites } : {});
  for (let r = 0; r < times; r++) {
    for (const [pipeline, groups, [x, y, z]] of dispatches) {
      pass.setPipeline(pipeline);
      groups.forEach((group, index) => pass.setBindGroup(index, group));
      pass.dispatchWorkgroups(x, y, z);
    }
  }
  pass.end();
}

async function hostTimed(encoder, dispatches, samples) {
  const queue = state.device.queue;
  queue.submit([encoder.finish()]);
  await queue.onSubmittedWorkDone();
  const host = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const timed = state.device.createCommandEncoder();
    encodePass(timed, dispatches, 1, null);
    queue.submit([timed.finish()]);
    await queue.onSubmittedWorkDone();
    host.push(performance.now() - start);
  }
  return { host };
}

async function deviceTimed(encoder, dispatches, samples, submitEvery, querySet, resolve, staging) {
  const queue = state.device.queue;
  for (let i = 0; i < samples; i++) {
    encodePass(encoder, dispatches, 1,
               { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 });
    if (i % submitEvery === submitEvery - 1 && i !== samples - 1) {
      queue.submit([encoder.finish()]);
      encoder = state.device.createCommandEncoder();
    }
  }
  encoder.resolveQuerySet(querySet, 0, 2 * samples, resolve, 0);
  encoder.copyBufferToBuffer(resolve, 0, staging, 0, 16 * samples);
  queue.submit([encoder.finish()]);
  return mappedBytes(staging, 16 * samples, (bytes) => {
    const ticks = new BigUint64Array(bytes.buffer, bytes.byteOffset, 2 * samples);
    const begin = [], end = [];
    for (let i = 0; i < samples; i++) {
      begin.push(Number(ticks[2 * i]));
      end.push(Number(ticks[2 * i + 1]));
    }
    return { begin, end };
  });
}

function describe(error) {
  if (error instanceof Failure) return { kind: error.kind, message: error.message, ...error.details };
  if (state.lost) return { kind: "lost", message: lostFailure().message };
  return { kind: "page", message: `${error.name}: ${error.message}` };
}

async function handle(buffer) {
  const started = performance.now();
  const header = new DataView(buffer).getUint32(0, true);
  const { commands } = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, header)));
  let at = 4 + header;
  const results = [], payloads = [], scopes = [];
  let error = null;
  for (let index = 0; index < commands.length && !error; index++) {
    const command = commands[index];
    const inline = command.inline ? new Uint8Array(buffer, at, command.inline) : null;
    at += command.inline || 0;
    const scoped = state.device !== null && !state.lost;
    if (scoped) pushScopes();
    try {
      results.push(await runCommand(command, inline, payloads));
    } catch (e) {
      // A loss shows in failed calls before the device.lost promise settles.
      if (!(e instanceof Failure) && state.device && !state.lost) await Promise.race([state.device.lost, sleep(100)]);
      error = { index, op: command.op, ...describe(e) };
    }
    if (scoped) scopes.push([index, command.op, popScopes()]);
  }
  // WebGPU's own report wins, unless this page already typed the same command's failure
  // (Tint's messages say more than the shader module's validation error).
  const reported = await firstScopeError(scopes);
  if (reported && (!error || reported.index < error.index || error.kind === "page")) error = reported;
  send({ results, error, pageMs: performance.now() - started }, payloads);
}

async function runCommand(command, inline, payloads) {
  if (state.lost && command.op !== "release") throw lostFailure();
  const op = ops[command.op];
  if (!op) throw new Failure("page", `unknown operation ${command.op}`);
  const result = (await op(command, inline)) || {};
  if (!result.inline) return result;
  payloads.push(result.inline);
  return { ...result, inline: result.inline.length };
}

// The error WebGPU reported for the earliest command of the message, if any.
async function firstScopeError(scopes) {
  for (const [index, op, popped] of scopes) {
    const errors = await popped;
    const found = errors.findIndex((e) => e !== null);
    if (state.lost) return { index, op, kind: "lost", message: lostFailure().message };
    if (found >= 0) return { index, op, kind: SCOPES[found], message: errors[found].message };
  }
  return null;
}

function send(reply, payloads) {
  const json = new TextEncoder().encode(JSON.stringify(reply));
  const total = 4 + json.length + payloads.reduce((n, p) => n + p.length, 0);
  const message = new Uint8Array(total);
  new DataView(message.buffer).setUint32(0, json.length, true);
  message.set(json, 4);
  let offset = 4 + json.length;
  for (const payload of payloads) { message.set(payload, offset); offset += payload.length; }
  state.ws.send(message);
}

function connect() {
  const ws = new WebSocket(`ws://${location.host}${base}channel`);
  ws.binaryType = "arraybuffer";
  let queue = Promise.resolve();
  ws.onmessage = (event) => { queue = queue.then(() => handle(event.data)); };
  // Python went away (closed, or lost the context): free the device's memory now.
  ws.onclose = () => { if (state.device) state.device.destroy(); };
  state.ws = ws;
}

connect();
