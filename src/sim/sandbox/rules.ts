/**
 * The sandbox rules over a token stream. Policy (justified in docs/security.md): system tasks are
 * allow-listed, so a task this file has never heard of is rejected rather than trusted; file output, DPI,
 * embedded C++ and Verilator metacomments that change the generated C++ are rejected.
 */
import type { Token } from './scan';

export type SandboxRule =
  | 'system-task'
  | 'embedded-cpp'
  | 'dpi'
  | 'file-output'
  | 'file-input'
  | 'unknown-system-task'
  | 'metacomment'
  | 'directive'
  | 'escaped-system-name'
  | 'include-outside-workspace'
  | 'include-macro'
  | 'include-not-file'
  | 'preprocess-limit';

export interface RuleHit {
  token: Token;
  rule: SandboxRule;
  message: string;
}

const words = (s: string): Set<string> => new Set(s.trim().split(/\s+/));

/** System tasks and functions a testbench may call: none of them writes a file or runs code. */
export const allowedSystemTasks = words(`
  $display $displayb $displayh $displayo $write $writeb $writeh $writeo
  $strobe $strobeb $strobeh $strobeo $monitor $monitorb $monitorh $monitoro $monitoron $monitoroff
  $sformat $sformatf $swrite $swriteb $swriteh $swriteo $sscanf
  $finish $stop $exit
  $time $stime $realtime $timeformat $printtimescale $timeunit $timeprecision
  $random $urandom $urandom_range $dist_uniform $dist_normal $dist_exponential $dist_poisson
  $dist_chi_square $dist_t $dist_erlang $get_initial_random_seed
  $signed $unsigned $itor $rtoi $bitstoreal $realtobits $shortrealtobits $bitstoshortreal $cast
  $clog2 $ln $log10 $exp $sqrt $pow $floor $ceil $sin $cos $tan $asin $acos $atan $atan2 $hypot
  $sinh $cosh $tanh $asinh $acosh $atanh
  $countones $countbits $onehot $onehot0 $isunknown $bits $typename
  $dimensions $unpacked_dimensions $left $right $low $high $increment $size
  $error $warning $info $fatal
  $asserton $assertoff $assertkill $assertcontrol $assertpasson $assertpassoff $assertfailon $assertfailoff
  $assertnonvacuouson $assertvacuousoff
  $past $rose $fell $stable $changed $sampled
  $test$plusargs $value$plusargs
  $fclose $feof $ferror $fseek $ftell $rewind $fflush
  $dumpvars $dumpon $dumpoff $dumpall $dumplimit $dumpflush
  $root $unit $stacktrace
`);

/** Tasks that write files; `$fopen` and `$dumpfile` are judged by their arguments instead. */
const fileOutputTask = /^\$(?:f(?:write|display|strobe|monitor)[bho]?|writemem[bh]|dumpports\w*)$/;
/** `$c("...")` and its sized forms paste raw C++ into the generated model. */
const embeddedCppTask = /^\$c(?:\d+|pure)?$/;

/** Compiler directives that can survive preprocessing and change nothing but parsing. */
const allowedDirectives = words(`
  timescale default_nettype celldefine endcelldefine resetall begin_keywords end_keywords
  unconnected_drive nounconnected_drive pragma
`);

/** Verilator metacomments that only silence lint, steer coverage or tracing: none changes the C++ interface. */
const allowedMetacomments = words(`
  lint_off lint_on lint_save lint_restore coverage_off coverage_on coverage_block_off
  tracing_off tracing_on full_case parallel_case timing_on timing_off
`);

/** Shortens untrusted text quoted in a message. */
function shown(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Modes `$fopen` may use in CHORUS's own harness: reading only. */
const readModes = new Set(['r', 'rb']);

/**
 * Tasks that read a file's content into the simulation. Stimulus needs none, and what a testbench reads it can
 * print, and printed text reaches the model's feedback: only CHORUS's own harness (its stimulus file) may read.
 */
const fileInputTask = new Set(['$fgetc', '$fgets', '$fscanf', '$fread', '$ungetc', '$readmemh', '$readmemb']);

export interface RuleOptions {
  /** CHORUS's own generated harness reads its stimulus file: `$fopen` for reading and the reading tasks pass. */
  allowFileReads?: boolean | undefined;
}

export function applyRules(tokens: Token[], options: RuleOptions = {}): RuleHit[] {
  const hits: RuleHit[] = [];
  const hit = (token: Token, rule: SandboxRule, message: string): void => {
    hits.push({ token, rule, message });
  };
  // Significant tokens: comments and `line directives may sit anywhere between a keyword and its operand.
  const sig = tokens.filter((t) => t.kind !== 'comment' && t.kind !== 'line');
  const calls = callArguments(sig, (t) => t.kind === 'system' && argumentsMatter.has(t.text));
  for (const tok of tokens) if (tok.kind === 'comment') checkMetacomment(tok, hit);
  sig.forEach((tok, at) => {
    switch (tok.kind) {
      case 'system':
        checkSystem(tok, calls.get(at), hit, options);
        break;
      case 'ident':
        if (tok.text === 'import' || tok.text === 'export') {
          const next = sig[at + 1];
          if (next?.kind === 'string') {
            hit(
              tok,
              'dpi',
              `\`${tok.text} "${shown(next.text)}"\` declares a DPI function: a testbench may not call into or out of C code.`,
            );
          }
        }
        break;
      case 'escaped':
        if (tok.text.startsWith('$')) {
          hit(
            tok,
            'escaped-system-name',
            `The escaped name \`\\${shown(tok.text)}\` imitates a system task; rename it.`,
          );
        }
        break;
      case 'directive':
        checkDirective(tok, sig, at, hit);
        break;
      default:
        break;
    }
  });
  return hits;
}

type Hit = (token: Token, rule: SandboxRule, message: string) => void;

/** Tasks judged by their arguments. */
const argumentsMatter = new Set(['$fopen', '$dumpfile']);

/**
 * The call's arguments, each as its tokens ('long' past a few tokens: no rule needs more); 'none' without
 * parentheses; 'unreadable' when they do not close.
 */
type CallArgs = Array<Token[] | 'long'> | 'none' | 'unreadable';
const shortArgTokens = 4;

function checkSystem(tok: Token, call: CallArgs | undefined, hit: Hit, options: RuleOptions): void {
  const name = tok.text;
  if (fileInputTask.has(name)) {
    if (!options.allowFileReads)
      hit(
        tok,
        'file-input',
        `\`${shown(name)}\` reads a file: a testbench drives stimulus from its own code; write the values out in it.`,
      );
  } else if (name === '$system') {
    hit(tok, 'system-task', '`$system` runs a shell command: remove it.');
  } else if (embeddedCppTask.test(name)) {
    hit(tok, 'embedded-cpp', `\`${shown(name)}\` embeds raw C++ in the simulator: remove it.`);
  } else if (fileOutputTask.test(name)) {
    hit(tok, 'file-output', `\`${shown(name)}\` writes a file: print with $display instead.`);
  } else if (name === '$fopen') {
    const args = Array.isArray(call) ? call : undefined;
    const mode = literal(args?.[1]);
    if (call === 'none' || (args && args.length < 2)) {
      hit(
        tok,
        'file-output',
        '`$fopen` without a mode opens a file for writing: a testbench may not open files; print with $display.',
      );
    } else if (mode === undefined) {
      hit(
        tok,
        'file-output',
        '`$fopen` needs a literal mode so the sandbox can see it: a testbench may not open files; print with $display.',
      );
    } else if (!readModes.has(mode)) {
      hit(
        tok,
        'file-output',
        `\`$fopen\` with mode "${shown(mode)}" writes a file: a testbench may not open files; print with $display.`,
      );
    } else if (!options.allowFileReads) {
      hit(
        tok,
        'file-input',
        '`$fopen` for reading opens a file: a testbench drives stimulus from its own code; write the values out in it.',
      );
    }
  } else if (name === '$dumpfile') {
    const file = literal(Array.isArray(call) ? call[0] : undefined);
    const ok = call === 'none' || (file !== undefined && isBareFileName(file));
    if (!ok) {
      hit(tok, 'file-output', '`$dumpfile` may only name a plain file in the run folder, such as "dump.vcd".');
    }
  } else if (!allowedSystemTasks.has(name)) {
    hit(
      tok,
      'unknown-system-task',
      `\`${shown(name)}\` is not on the sandbox's list of allowed system tasks (see docs/security.md): remove it.`,
    );
  }
}

/** The text of an argument that is one string literal and nothing else. */
function literal(arg: Token[] | 'long' | undefined): string | undefined {
  return Array.isArray(arg) && arg.length === 1 && arg[0]?.kind === 'string' ? arg[0].text : undefined;
}

function isBareFileName(name: string): boolean {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(name) && !name.startsWith('.');
}

const closerOf: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/**
 * The arguments (token groups split on top-level commas) of every call whose name token passes `wanted`, in
 * one pass over the tokens with a bracket stack, so the check stays linear on hostile input.
 */
function callArguments(sig: Token[], wanted: (t: Token) => boolean): Map<number, CallArgs> {
  const calls = new Map<number, CallArgs>();
  // For each wanted call whose "(" is open: the index of that "(" and the commas seen at its level.
  const open = new Map<number, { name: number; commas: number[] }>();
  const stack: number[] = [];
  sig.forEach((t, k) => {
    if (wanted(t)) {
      const next = sig[k + 1];
      if (next?.kind === 'punct' && next.text === '(') open.set(k + 1, { name: k, commas: [] });
      else calls.set(k, 'none');
    }
    if (t.kind !== 'punct') return;
    if (t.text in closerOf) {
      stack.push(k);
    } else if (t.text === ',' && stack.length) {
      open.get(stack[stack.length - 1] as number)?.commas.push(k);
    } else if (t.text === ')' || t.text === ']' || t.text === '}') {
      const from = stack.pop();
      if (from === undefined) return;
      const call = open.get(from);
      if (!call) return;
      open.delete(from);
      if (closerOf[sig[from]?.text ?? ''] !== t.text) return;
      const bounds = [from, ...call.commas, k];
      const args = bounds.slice(1).map((end, j) => {
        const begin = (bounds[j] as number) + 1;
        return end - begin > shortArgTokens ? ('long' as const) : sig.slice(begin, end);
      });
      calls.set(call.name, args);
    }
  });
  for (const call of open.values()) calls.set(call.name, 'unreadable');
  return calls;
}

function checkDirective(tok: Token, sig: Token[], at: number, hit: Hit): void {
  const name = tok.text;
  if (name.startsWith('systemc_')) {
    hit(tok, 'embedded-cpp', `The \`${shown(name)} block embeds raw C++ in the simulator: remove it.`);
  } else if (name === 'pragma') {
    const next = sig[at + 1];
    if (next?.kind === 'ident' && next.text === 'protect') {
      hit(tok, 'directive', 'The directive `pragma protect hides code from the sandbox check: send plain source.');
    }
  } else if (!allowedDirectives.has(name)) {
    hit(
      tok,
      'directive',
      `The directive \`${shown(name)} is not allowed in a testbench after preprocessing: remove it.`,
    );
  }
}

function checkMetacomment(tok: Token, hit: Hit): void {
  const m = /^\s*verilator(.*)$/is.exec(tok.text);
  if (!m) return;
  const word = /^\s*([A-Za-z_]+)/.exec(m[1] ?? '')?.[1];
  if (!word || !allowedMetacomments.has(word)) {
    hit(
      tok,
      'metacomment',
      `The Verilator metacomment \`${shown(tok.text.trim())}\` is not allowed in a testbench: only lint, coverage and tracing switches are.`,
    );
  }
}
