/** `chorus inspect`: what DUT analysis finds in RTL files — modules, parameters, ports, top, clock, reset. */
import type { Command } from 'commander';
import pc from 'picocolors';
import { analyzeDesign, checkOverrides, moduleByName, rankedChoices } from '../../engine';
import { ChorusError, type DesignAnalysis, type ModuleInfo, type PortInfo, type ResetInfo } from '../../protocol';
import type { CliContext } from '../context';
import { addDesignOptions, designInput, type DesignCliFlags } from '../design';
import type { RegisterCommand } from './register';

interface InspectFlags extends DesignCliFlags {
  top?: string;
  json?: boolean;
}

const resetJson = (r: ResetInfo) => ({ name: r.name, activeLow: r.activeLow, async: r.async });

/**
 * The documented JSON shape: exactly these keys, so scripts can rely on them. A localparam carries `local: true`
 * (it cannot be given to -G); an array port carries its unpacked `dimensions` (`width` is one element's).
 */
function toJson(a: DesignAnalysis): unknown {
  return {
    modules: a.modules.map((m) => ({
      name: m.name,
      file: m.file,
      line: m.line,
      params: m.params.map((p) => ({ name: p.name, default: p.default, ...(p.local ? { local: true } : {}) })),
      ports: m.ports.map((p) => ({
        name: p.name,
        direction: p.direction,
        width: p.width,
        ...(p.unpacked ? { unpacked: p.unpacked } : {}),
        ...(p.dimensions ? { dimensions: p.dimensions } : {}),
      })),
    })),
    top: a.top,
    clock: a.clock,
    reset: a.reset ? resetJson(a.reset) : null,
    clocks: a.clocks ?? (a.clock ? [a.clock] : []),
    resets: (a.resets ?? (a.reset ? [a.reset] : [])).map(resetJson),
    candidates: rankedChoices(a),
  };
}

function dimsText(p: PortInfo): string {
  if (!p.unpacked) return '';
  if (!p.dimensions) return `, array ${p.unpacked} (bounds unresolved)`;
  const n = p.dimensions.reduce((k, d) => k * (Math.abs(d.left - d.right) + 1), 1);
  return `, array ${p.dimensions.map((d) => `[${d.left}:${d.right}]`).join('')} of ${n}`;
}

function describeReset(r: ResetInfo | null): string {
  if (!r) return 'none';
  return `${r.name} (active ${r.activeLow ? 'low' : 'high'}, ${r.async ? 'asynchronous' : 'synchronous'})`;
}

function moduleText(m: ModuleInfo, isTop: boolean): string[] {
  const lines = [`${pc.bold(m.name)}  ${pc.dim(`${m.file}:${m.line}`)}${isTop ? pc.green('  (top)') : ''}`];
  if (m.params.length) {
    const ps = m.params.map((p) => {
      const shown = p.value !== undefined && String(p.value) !== p.default ? `${p.default} (= ${p.value})` : p.default;
      return `${p.local ? 'localparam ' : ''}${p.name} = ${shown}`;
    });
    lines.push(`  parameters: ${ps.join(', ')}`);
  }
  const nameWidth = Math.max(4, ...m.ports.map((p) => p.name.length));
  for (const p of m.ports) {
    const bits = p.width > 0 ? `${p.width} bit${p.width === 1 ? '' : 's'}` : 'width unknown';
    const type = [p.type, p.signed ? 'signed' : '', p.rangeText ?? '', p.unpacked ?? ''].filter(Boolean).join(' ');
    lines.push(
      `  ${p.direction.padEnd(6)} ${p.name.padEnd(nameWidth)}  ${bits.padEnd(9)}  ${pc.dim(type)}${dimsText(p)}`,
    );
  }
  const clocks = m.clocks ?? [];
  const resets = m.resets ?? [];
  if (clocks.length > 1 || resets.length > 1)
    lines.push(
      `  clocks: ${clocks.join(', ') || 'none'} (primary ${m.clock ?? 'none'}), resets: ${resets.map(describeReset).join(', ') || 'none'}`,
    );
  else if (m.clock || m.reset) lines.push(`  clock: ${m.clock ?? 'none'}, reset: ${describeReset(m.reset)}`);
  for (const f of m.fsms) lines.push(`  state machine ${f.variable}: ${f.states.join(', ')}`);
  if (m.instances.length) lines.push(`  instances: ${m.instances.map((i) => `${i.name} (${i.module})`).join(', ')}`);
  return lines;
}

async function action(given: string[], flags: InspectFlags, ctx: CliContext): Promise<void> {
  const { files, includeDirs, defines, parameters, top: sourcesTop } = await designInput(given, flags);
  const analysis = await analyzeDesign(files, {
    top: flags.top ?? sourcesTop,
    design: { includeDirs, defines, parameters },
    verilatorPath: process.env.CHORUS_VERILATOR,
  });
  if (analysis.errors.length) {
    for (const e of analysis.errors) ctx.logger.info(`${e.file}:${e.line}:${e.column}: ${e.message}`);
    const n = analysis.errors.length;
    throw new ChorusError(
      'bad_input',
      `${n} syntax error${n === 1 ? '' : 's'} in the RTL: fix ${n === 1 ? 'it' : 'them'} and run again.`,
    );
  }
  if (!analysis.modules.length)
    throw new ChorusError('bad_input', 'No module found in the given files: pass the RTL that defines the DUT.');
  if (flags.top !== undefined && !moduleByName(analysis, flags.top)) {
    throw new ChorusError(
      'bad_input',
      `Module '${flags.top}' is not defined in the given files (modules: ${analysis.modules.map((m) => m.name).join(', ')}): check --top.`,
    );
  }
  const top = analysis.top !== null ? moduleByName(analysis, analysis.top) : undefined;
  if (Object.keys(parameters).length) {
    if (!top)
      throw new ChorusError(
        'bad_input',
        `-G overrides the top's parameters, and the top is not known: pass --top <module>.`,
      );
    checkOverrides(top, parameters);
  }
  const choices = rankedChoices(analysis);
  const inner = choices.filter((n) => !analysis.topCandidates.includes(n));
  if (analysis.top === null && analysis.topCandidates.length > 1) {
    ctx.logger.warn(
      `Several modules could be the top (${analysis.topCandidates.join(', ')}): pass --top <module> to pick one${inner.length ? ` (a module they instantiate can be the top too: ${inner.join(', ')})` : ''}.`,
    );
  }
  if (flags.json) {
    ctx.out(JSON.stringify(toJson(analysis), null, 2));
    return;
  }
  const out: string[] = [];
  for (const m of analysis.modules) out.push(...moduleText(m, m.name === analysis.top), '');
  out.push(
    `top: ${analysis.top ?? (analysis.topCandidates.length ? `ambiguous (${analysis.topCandidates.join(', ')})` : 'none')}`,
  );
  const others = choices.filter((n) => n !== analysis.top);
  if (others.length) out.push(`${analysis.top ? 'other candidates' : 'candidates'} (--top): ${others.join(', ')}`);
  const topClocks = analysis.clocks ?? [];
  out.push(
    `clock: ${analysis.clock ?? 'none'}${topClocks.length > 1 ? ` (other clocks: ${topClocks.filter((c) => c !== analysis.clock).join(', ')})` : ''}`,
  );
  const topResets = analysis.resets ?? [];
  out.push(
    `reset: ${describeReset(analysis.reset)}${topResets.length > 1 ? ` (other domain resets: ${topResets.slice(1).map(describeReset).join(', ')})` : ''}`,
  );
  ctx.out(out.join('\n'));
}

export const registerInspect: RegisterCommand = (program: Command, ctx: CliContext) => {
  const command = program
    .command('inspect')
    .description('Show the modules, parameters, ports, top, clock and reset that analysis finds in RTL files.')
    .argument('[rtl...]', 'Verilog/SystemVerilog source files; or give --filelist')
    .option('--top <module>', 'the top module, when several modules could be it')
    .option('--json', 'print {modules, top, clock, reset, clocks, resets, candidates} as JSON');
  addDesignOptions(command).action((files: string[], flags: InspectFlags) => action(files, flags, ctx));
};
