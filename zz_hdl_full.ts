import { analyzeSources } from './src/hdl';
import { bigDesign } from './bench/hdl-big-design';
const { text } = bigDesign(10000);
analyzeSources([{ name: 'w', content: 'module w; endmodule' }]);
for (let i = 0; i < 10; i++) analyzeSources([{ name: 'y', content: text + `// ${i}\n` }]);
