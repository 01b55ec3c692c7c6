import { analyzeSources } from './src/hdl';
import { bigDesign } from './bench/hdl-big-design';
const { text } = bigDesign(10000);
analyzeSources([{ name: 'y', content: text }]);
const t0 = performance.now();
for (let i = 0; i < 30; i++) analyzeSources([{ name: 'y', content: text }], { top: `t${i}` });
console.log('resolve ms', (performance.now() - t0) / 30);
