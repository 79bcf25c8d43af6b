// Times one ONNX model on ONNX Runtime's CPU execution provider (the npm
// package onnxruntime-node), for bench/inference_vs_onnxruntime.py:
//
//   node bench/ort_time.js ORT_DIR MODEL.onnx INPUT_NAME INPUT.f32 SHAPE \
//       THREADS STEPS OUTPUT.f32
//
// INPUT.f32 holds the input's float32 values (SHAPE like 1x3x64x64); the
// first output is written to OUTPUT.f32. Prints a JSON line with the
// median step in ms, after 3 warm-up runs.
'use strict';
const fs = require('fs');
const [ortDir, model, inputName, inputPath, shape, threads, steps, outPath] =
    process.argv.slice(2);
const ort = require(ortDir);

async function main() {
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
  });
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const feeds = {
    [inputName]: new ort.Tensor('float32', data, shape.split('x').map(Number)),
  };
  let result;
  for (let i = 0; i < 3; ++i)
    result = await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(steps); ++i) {
    const start = process.hrtime.bigint();
    result = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const out = result[session.outputNames[0]].data;
  fs.writeFileSync(outPath, Buffer.from(out.buffer, out.byteOffset,
                                        out.byteLength));
  console.log(JSON.stringify({median_ms: times[times.length >> 1]}));
}
main().catch((e) => { console.error(e); process.exit(1); });
