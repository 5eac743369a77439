// Runs one command with one throwaway PostgreSQL cluster for all of it:
//   node scripts/with-postgres.ts node scripts/run-tests.ts "test/db/**/*.test.ts" …
// The cluster (test/support/postgres-cluster.ts: initdb in a temp folder, a free loopback port,
// the `postgres` user when run as root) is started once, its superuser URL handed to the command
// as TEST_POSTGRES_URL (each test file then makes its own databases on it instead of starting a
// cluster of its own), and stopped with its folder removed however the command ends: its exit,
// SIGINT or SIGTERM here (passed on to the command, which is waited for first), or a failure to
// start it. Should this process itself be SIGKILLed, the cluster's own watcher shell stops the
// server when this process's pipe closes. Exits with the command's status (128 + signal number
// when the command died of a signal).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { startPostgresCluster } from '../test/support/postgres-cluster.ts';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node scripts/with-postgres.ts <command> [args…]');
  process.exit(2);
}

// Until the command runs, a signal just ends this process; the cluster's exit handler stops it.
const earlySignal = (signal: NodeJS.Signals) => process.exit(128 + constants.signals[signal]);
process.once('SIGINT', earlySignal).once('SIGTERM', earlySignal);

const cluster = await startPostgresCluster();
const port = new URL(cluster.adminUrl).port;
console.log(`with-postgres: a throwaway PostgreSQL cluster on 127.0.0.1:${port} for this command (TEST_POSTGRES_URL)`);

process.off('SIGINT', earlySignal).off('SIGTERM', earlySignal);
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TEST_POSTGRES_URL: cluster.adminUrl } });
// A terminal's Ctrl-C reaches the command too (same process group); a SIGTERM sent to this
// process alone (CI cancelling the job) is passed on. Either way the command ends first, so no
// test is cut off mid-query by the cluster going away, then the cluster stops below.
const forward = (signal: NodeJS.Signals) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
process.on('SIGINT', forward).on('SIGTERM', forward);

const status = await new Promise<number>((resolve) => {
  child.once('error', (error) => {
    console.error(`with-postgres: could not run ${command}: ${error.message}`);
    resolve(127);
  });
  child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
});
await cluster.stop();
console.log(`with-postgres: the cluster is stopped and its folder removed (command exit status ${status})`);
process.exit(status);
