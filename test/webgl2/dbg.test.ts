import { it } from 'vitest';
import { launchBrowser, startServer } from '/work/wt-gl-pose/test/e2e/harness';
it('dbg', async () => {
  const { server, baseUrl } = await startServer();
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(`${baseUrl}/test/webgl2/pose-page/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  for (const [m, o] of [['Fox/Fox.glb', { count: 10000, layered: 0, clock: 7.3, seed: 1, repeat: 5 }], ['Fox/Fox.glb', { count: 2000, layered: 0, clock: 7.3, seed: 1, repeat: 5 }], ['RobotExpressive/RobotExpressive.glb', { count: 2000, layered: 0, clock: 7.3, seed: 1, repeat: 5 }]] as const) {
    const r = await page.evaluate(([m, o]) => (window as any).poseCase('/models/' + m, o), [m, o] as const);
    console.log('RESULT', m, JSON.stringify(o), r.passMs, r.worst);
  }
  await browser.close(); await server.close();
}, 600000);
