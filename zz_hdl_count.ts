import { Walker } from './src/hdl/walker';
import { extractFile } from './src/hdl/extract';
import { bigDesign } from './bench/hdl-big-design';
let n = 0;
const orig = Walker.prototype.each;
Walker.prototype.each = function (this: Walker, fn: (t: string) => void) { orig.call(this, (t: string) => { n++; fn(t); }); };
extractFile('x', bigDesign(10000).text);
console.log('total visits', n);
