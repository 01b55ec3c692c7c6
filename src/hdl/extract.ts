/**
 * One pass over one file's syntax tree, collecting what `raw.ts` describes. It enters statements and
 * declarations but never expressions (their text is read by slicing the source), which keeps a 10,000-line
 * file to a small share of its nodes.
 */
import { resolveConditionals, VERILATOR_DEFINES } from './conditionals';
import { DeclarationReader } from './declarations';
import { HeaderReader } from './module-header';
import { parseText } from './parser';
import { emptyScope, type RawFile, type RawInstance, type RawModule, type RawPackage, type RawScope } from './raw';
import { splitAssignment, StatementReader } from './statements';
import { collectSyntaxErrors } from './syntax-errors';
import { Walker } from './walker';

/** Nodes that only wrap module items: walk into them. */
const ITEM_CONTAINERS = new Set([
  'module_item',
  'non_port_module_item',
  'module_or_generate_item',
  'module_or_generate_item_declaration',
  'module_common_item',
  'package_or_generate_item_declaration',
  'package_item',
  'generate_region',
  'loop_generate_construct',
  'conditional_generate_construct',
  'if_generate_construct',
  'case_generate_construct',
  'case_generate_item',
  'generate_block',
  'generate_item',
  'elaboration_system_task',
]);

class FileExtractor {
  private readonly w: Walker;
  private readonly decls: DeclarationReader;
  private readonly header: HeaderReader;
  private readonly statements: StatementReader;
  readonly result: RawFile;
  /** How many generate for/if/case constructs enclose the module item being read. */
  private generateDepth = 0;

  constructor(file: string, original: string, defined: ReadonlySet<string>) {
    // positions survive: inactive `ifdef branches become spaces, not gaps
    const source = resolveConditionals(original, defined);
    const tree = parseText(source, file);
    this.w = new Walker(tree.walk(), source, file);
    this.decls = new DeclarationReader(this.w);
    this.header = new HeaderReader(this.w, this.decls);
    this.statements = new StatementReader(this.w);
    this.result = {
      file,
      modules: [],
      packages: [],
      unit: emptyScope(),
      macros: {},
      errors: collectSyntaxErrors(tree, file),
    };
  }

  run(): RawFile {
    this.w.each((type) => this.topItem(type));
    return this.result;
  }

  private topItem(type: string): void {
    switch (type) {
      case 'module_declaration':
        this.result.modules.push(this.module());
        return;
      case 'package_declaration':
        this.result.packages.push(this.package());
        return;
      case 'text_macro_definition':
        this.macro();
        return;
      case 'function_declaration':
        this.functionText(this.result.unit);
        return;
      default:
        if (ITEM_CONTAINERS.has(type)) this.w.each((t) => this.topItem(t));
        else this.decls.item(type, this.result.unit);
    }
  }

  /** A function's text under its name: a width or parameter may call it as a constant function. */
  private functionText(scope: RawScope): void {
    const text = this.w.flatText();
    const name = /^function\b[^;(]*?([A-Za-z_][\w$]*)\s*[(;]/.exec(text)?.[1];
    if (name) (scope.functions ??= []).push({ name, text });
  }

  private macro(): void {
    let name: string | undefined;
    let body = '';
    let hasArgs = false;
    this.w.each((t) => {
      if (t === 'text_macro_name') {
        this.w.each((u) => {
          if (u === 'simple_identifier') name ??= this.w.text();
          if (u === 'list_of_formal_arguments') hasArgs = true;
        });
      } else if (t === 'macro_text') body = this.w.text();
    });
    // Function-like macros cannot stand for a constant without their arguments.
    // A comment on the define's line is not part of the macro's text (`define LUI 7'b0110111 // lui).
    if (name && !hasArgs)
      this.result.macros[name] = body
        .replace(/\/\*[\s\S]*?\*\//g, ' ')
        .replace(/\/\/[^\n]*/g, '')
        .replace(/\\\n/g, ' ')
        .trim();
  }

  private package(): RawPackage {
    const pkg: RawPackage = { name: '', ...emptyScope() };
    const visit = (t: string) => {
      if (t === 'simple_identifier' && !pkg.name) pkg.name = this.w.text();
      else if (t === 'function_declaration') this.functionText(pkg);
      else if (ITEM_CONTAINERS.has(t)) this.w.each(visit);
      // Inside a package, `parameter` is a localparam (IEEE 1800 26.2): local either way.
      else this.decls.item(t, pkg);
    };
    this.w.each(visit);
    return pkg;
  }

  private module(): RawModule {
    const mod: RawModule = {
      name: '',
      file: this.w.file,
      range: this.w.range(),
      ansi: true,
      portOrder: [],
      ports: [],
      hasParamPortList: false,
      instances: [],
      always: [],
      cases: [],
      assigns: [],
      otherWrites: [],
      exprs: [],
      sites: [],
      ...emptyScope(),
    };
    this.w.each((t) => {
      if (t === 'module_ansi_header' || t === 'module_nonansi_header')
        this.header.header(mod, t === 'module_ansi_header');
      else this.moduleItem(t, mod);
    });
    return mod;
  }

  private moduleItem(type: string, mod: RawModule): void {
    switch (type) {
      case 'port_declaration':
        this.header.nonAnsiPorts(mod);
        return;
      case 'module_instantiation':
        this.instantiation(mod);
        return;
      case 'always_construct': {
        const at = mod.sites.length;
        this.statements.always(mod);
        if (this.generateDepth > 0) mod.sites[at].within = 'generate';
        return;
      }
      case 'function_declaration':
      case 'task_declaration': {
        const at = mod.sites.length;
        if (type === 'function_declaration') this.functionText(mod);
        this.statements.body(mod);
        for (const s of mod.sites.slice(at)) s.within = type === 'function_declaration' ? 'function' : 'task';
        return;
      }
      case 'initial_construct':
      case 'final_construct':
        this.statements.body(mod);
        return;
      case 'loop_generate_construct':
      case 'if_generate_construct':
      case 'case_generate_construct':
        this.generateDepth++;
        this.w.each((t) => this.moduleItem(t, mod));
        this.generateDepth--;
        return;
      case 'continuous_assign':
        this.continuousAssign(mod);
        return;
      case 'parameter_declaration':
        // a body `parameter` is local when the header has a parameter list (IEEE 1800 6.20.1)
        this.decls.params(mod.params, mod.hasParamPortList);
        return;
      default:
        if (ITEM_CONTAINERS.has(type)) this.w.each((t) => this.moduleItem(t, mod));
        else this.decls.item(type, mod);
    }
  }

  private instantiation(mod: RawModule): void {
    let moduleName = '';
    this.w.each((t) => {
      if (t === 'simple_identifier' && !moduleName) moduleName = this.w.text();
      else if (t === 'hierarchical_instance') {
        const inst: RawInstance = { module: moduleName, name: '', connections: [], range: this.w.range() };
        this.w.each((u) => {
          if (u === 'name_of_instance') {
            this.w.each((v) => {
              if (v === 'simple_identifier' && !inst.name) inst.name = this.w.text();
            });
          } else if (u === 'list_of_port_connections') {
            this.w.each((v) => {
              if (v === 'named_port_connection') {
                const text = this.w.flatText();
                const m = /^\.\s*([\w$]+)\s*(?:\(([\s\S]*)\))?$/.exec(text);
                if (text === '.*') inst.connections.push({ port: '*', expr: '*' });
                else if (m) inst.connections.push({ port: m[1], expr: m[2] === undefined ? m[1] : m[2].trim() });
              } else if (v === 'ordered_port_connection')
                inst.connections.push({ port: null, expr: this.w.flatText() });
            });
          }
        });
        if (inst.name) mod.instances.push(inst);
      }
    });
  }

  private continuousAssign(mod: RawModule): void {
    const line = this.w.line();
    this.w.each((t) => {
      if (t !== 'list_of_net_assignments') return;
      this.w.each((u) => {
        if (u !== 'net_assignment') return;
        const split = splitAssignment(this.w.flatText());
        if (!split) return;
        mod.exprs.push({ text: split.rhs, line });
        mod.assigns.push({ lhs: split.lhs, rhs: split.rhs, line, continuous: true });
      });
    });
  }
}

/**
 * Parses one file and collects its modules, packages, unit-level declarations, macros and syntax errors; `defined`
 * names the macros `ifdef sees defined (Verilator's own, plus the design's `-D`/`+define+`).
 */
export function extractFile(file: string, text: string, defined: ReadonlySet<string> = VERILATOR_DEFINES): RawFile {
  return new FileExtractor(file, text, defined).run();
}
