// The container's health check: GET /healthz on this server over loopback (with the bearer token
// when FLEETSYNC_TOKEN is set). Exit 0 when it answers 200; 1 otherwise, printing the status and
// the reason it gave (docker inspect shows the output). Plain Node, no dependencies.
const port = process.env.FLEETSYNC_PORT || '8080';
const token = process.env.FLEETSYNC_TOKEN;
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(8000),
  });
  const body = (await res.text()).slice(0, 1000);
  if (res.status !== 200) {
    console.error(`unhealthy: HTTP ${res.status} ${body}`);
    process.exit(1);
  }
  console.log(`healthy: ${body}`);
} catch (e) {
  console.error(`unhealthy: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
