import { extractFile } from './src/hdl/extract';
import { bigDesign } from './bench/hdl-big-design';
const { text } = bigDesign(10000);
extractFile('w', 'module w; endmodule');
for (let i = 0; i < 10; i++) extractFile('y', text + `// ${i}\n`);
