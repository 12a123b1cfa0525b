// The baseline: a raw NDJSON echo server over the same kind of socket, doing the least a server
// can (split lines, write them back). memd's latency is judged against this.
import { createServer } from 'node:net';

const socketPath = process.argv[2];
if (!socketPath) {
  process.stderr.write('usage: node bench/echo-server.js SOCKET\n');
  process.exit(2);
}
const server = createServer((socket) => {
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      socket.write(pending.slice(0, newline + 1));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  });
  socket.on('error', () => {});
});
server.listen(socketPath, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
