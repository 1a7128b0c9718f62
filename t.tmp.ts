import { testCharacter } from './test/helpers/character';
import { characterBounds } from './src/bake/bounds';
for (const name of ['Fox','CesiumMan','RobotExpressive','Fox','RobotExpressive']) {
  const c = await testCharacter(name);
  const t = performance.now(); characterBounds(c.rig, c.baked, 2); console.log(name, (performance.now()-t).toFixed(1), 'ms');
}
