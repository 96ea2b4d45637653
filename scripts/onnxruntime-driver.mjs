// onnxruntime-driver.mjs - the onnxruntime peer of kiln-bench --vs-onnxruntime.
//
//   node onnxruntime-driver.mjs MODEL THREADS ITERATIONS NAME:DTYPE:D0,D1,... ...
//
// Speaks the protocol of tools/kiln-bench/graph_driver.c: "first_run T"
// (CLOCK_MONOTONIC seconds at the end of the first run: session creation,
// inputs and one run after the process started), ITERATIONS x "run S", then
// "VmHWM: K kB". kiln-bench passes every graph input with its ONNX element
// type and static shape; they are filled by graph_driver.c's generator, so
// both engines see the same numbers. The session uses THREADS intra-op
// threads, one inter-op thread, sequential execution and all graph
// optimizations (onnxruntime's defaults for a CPU session otherwise).
// scripts/bench-onnxruntime.sh installs onnxruntime-node and wraps this file.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.env.KILN_ORT_MODULES + '/');
const ort = require('onnxruntime-node');

const [model, threadsArg, iterationsArg, ...specs] = process.argv.slice(2);
const threads = Number(threadsArg), iterations = Number(iterationsArg);
if (!model || !(threads >= 1) || !(iterations >= 1)) {
  process.stderr.write('usage: onnxruntime-driver.mjs MODEL THREADS ITERATIONS NAME:DTYPE:DIMS...\n');
  process.exit(2);
}

// ONNX element type -> [onnxruntime type, typed array].
const types = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
};

let state = 12345;
function fill(dtype, count) {
  const [name, Array] = types[dtype];
  const data = new Array(count);
  for (let i = 0; i < count; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const r = state >>> 8;
    if (dtype === 1) data[i] = r / 8388608 - 1;
    else if (dtype === 7) data[i] = BigInt(r & 1);
    else data[i] = r & 1;
  }
  return new ort.Tensor(name, data, undefined);
}

const feeds = {};
for (const spec of specs) {
  const b = spec.lastIndexOf(':'), a = spec.lastIndexOf(':', b - 1);
  const name = spec.slice(0, a), dtype = Number(spec.slice(a + 1, b));
  const dims = spec.slice(b + 1) === '' ? [] : spec.slice(b + 1).split(',').map(Number);
  if (a < 0 || !types[dtype]) {
    process.stderr.write(`onnxruntime-driver: ${spec}: expected NAME:DTYPE:DIMS with DTYPE one of ${Object.keys(types)}\n`);
    process.exit(2);
  }
  const t = fill(dtype, dims.reduce((x, y) => x * y, 1));
  feeds[name] = new ort.Tensor(t.type, t.data, dims);
}

const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});
const seconds = () => Number(process.hrtime.bigint()) / 1e9; // CLOCK_MONOTONIC
await session.run(feeds);
process.stdout.write(`first_run ${seconds().toFixed(9)}\n`);
for (let i = 0; i < iterations; ++i) {
  const t0 = seconds();
  await session.run(feeds);
  process.stdout.write(`run ${(seconds() - t0).toFixed(9)}\n`);
}
const hwm = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
process.stdout.write(hwm + '\n');
