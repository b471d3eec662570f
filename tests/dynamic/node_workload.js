// node_workload.js: Node.js (V8's JIT, libuv's threads) under x64emu, compared with the
// native run: hashes, AES-GCM, JSON, regular expressions, a sort, floating point, files,
// a child process, a worker thread, an HTTP server and client on loopback, a timer.
'use strict';
const crypto = require('crypto'), fs = require('fs'), http = require('http'), os = require('os');
const path = require('path'), cp = require('child_process');
const { Worker, isMainThread, parentPort } = require('worker_threads');
if (!isMainThread) {
  let s = 0;
  for (let i = 0; i < 1e6; i++) s += i % 7;
  parentPort.postMessage(s);
  return;
}
const out = [];
out.push(crypto.createHash('sha512').update('x'.repeat(100000)).digest('hex').slice(0, 32));
const key = crypto.scryptSync('password', 'salt', 32);
const gcm = crypto.createCipheriv('aes-256-gcm', key, Buffer.alloc(12));
const sealed = Buffer.concat([gcm.update(Buffer.alloc(1 << 20, 7)), gcm.final()]);
out.push(crypto.createHash('sha256').update(sealed).digest('hex'), gcm.getAuthTag().toString('hex'));
out.push(JSON.stringify(JSON.parse(JSON.stringify({ a: [1, 2, { b: 'c' }], d: 1.5e300 }))));
out.push('abcabcabd'.replace(/b(c|d)/g, 'X'));
const arr = [];
for (let i = 0; i < 200000; i++) arr.push((i * 7919) % 10007);
arr.sort((x, y) => x - y);
out.push(String(arr[12345]));
out.push(String(Math.sin(1e10)), String(Math.pow(2, 0.5)), String(0.1 + 0.2), String(Math.exp(-745)));
const file = path.join(os.tmpdir(), `x64emu-node-${process.pid}.txt`);
fs.writeFileSync(file, 'written and read back');
out.push(fs.readFileSync(file, 'utf8'));
fs.unlinkSync(file);
out.push(cp.execFileSync('/bin/echo', ['from a child']).toString().trim());
const worker = new Worker(__filename);
worker.on('message', (sum) => {
  out.push(`worker ${sum}`);
  const server = http.createServer((req, res) => res.end('pong ' + req.url)).listen(0, '127.0.0.1', () => {
    http.get(`http://127.0.0.1:${server.address().port}/ping`, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        out.push(body);
        server.close();
        setTimeout(() => console.log(out.join('\n')), 10);
      });
    });
  });
});
