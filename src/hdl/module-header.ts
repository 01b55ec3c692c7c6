/** Module headers read from the syntax tree: name, parameter port list, ANSI and non-ANSI ports. */
import type { PortDirection } from '../protocol';
import { TYPE_WRAPPERS, type DeclarationReader } from './declarations';
import type { RawDataType, RawModule, RawPort } from './raw';
import type { Walker } from './walker';

export class HeaderReader {
  constructor(
    private readonly w: Walker,
    private readonly decls: DeclarationReader,
  ) {}

  /** Name, imports, parameters and ports of a module_ansi_header / module_nonansi_header. */
  header(mod: RawModule, ansi: boolean): void {
    mod.ansi = ansi;
    this.w.each((t) => {
      switch (t) {
        case 'simple_identifier':
          if (!mod.name) mod.name = this.w.text();
          return;
        case 'package_import_declaration':
          this.decls.imports(mod);
          return;
        case 'parameter_port_list':
          mod.hasParamPortList = true;
          this.paramPortList(mod);
          return;
        case 'list_of_port_declarations':
          this.ansiPorts(mod);
          return;
        case 'list_of_ports':
          this.w.each((u) => {
            if (u === 'port') {
              // `.name(expr)` ports keep their external name; plain ports are their own name
              const text = this.w.flatText();
              const m = /^\.\s*([\w$]+)/.exec(text) ?? /^([\w$]+)/.exec(text);
              if (m) mod.portOrder.push(m[1]);
            }
          });
          return;
        default:
          return;
      }
    });
  }

  private paramPortList(mod: RawModule): void {
    // A declaration without its own keyword keeps the kind of the one before it.
    let local = false;
    this.w.each((t) => {
      if (t === 'parameter_port_declaration') {
        let type: RawDataType | undefined; // `int C = 3` has its type and assignments right here
        this.w.each((u) => {
          if (u === 'parameter_declaration' || u === 'local_parameter_declaration') {
            local = u === 'local_parameter_declaration';
            this.decls.params(mod.params, local);
          } else if (u === 'type_parameter_declaration') this.decls.params(mod.params, local);
          else if (TYPE_WRAPPERS.has(u)) type = this.decls.dataType();
          else if (u === 'list_of_param_assignments') this.decls.paramAssignments(mod.params, local, type);
        });
      } else if (t === 'list_of_param_assignments') this.decls.paramAssignments(mod.params, local, undefined);
      else if (t === 'param_assignment') this.decls.paramAssignment(mod.params, local, undefined);
    });
  }

  private ansiPorts(mod: RawModule): void {
    let prev: RawPort | undefined;
    this.w.each((t) => {
      if (t !== 'ansi_port_declaration') return;
      const port: RawPort = { name: '', unpacked: [], range: this.w.range() };
      // the common shapes are read from the text: a port costs one node visit instead of eight
      const simple = simplePort(this.w.flatText());
      let hasHeader: boolean;
      if (simple) {
        port.name = simple.name;
        port.direction = simple.direction;
        port.type = simple.type;
        hasHeader = simple.hasHeader;
      } else hasHeader = this.portNodes(port);
      if (!port.name) return;
      if (!hasHeader && prev) {
        // `input [3:0] a, b`: b takes a's direction and type
        port.direction = prev.direction;
        port.type = prev.type;
        port.interfaceType = prev.interfaceType;
      } else if (!port.direction && !port.interfaceType) {
        port.direction = prev?.direction ?? 'inout';
      }
      if (!port.type && !port.interfaceType) port.type = { text: '', packed: [] };
      mod.ports.push(port);
      mod.portOrder.push(port.name);
      prev = port;
    });
  }

  /** Fills a port from its ansi_port_declaration's nodes; true when it has a header (direction or type). */
  private portNodes(port: RawPort): boolean {
    let hasHeader = false;
    this.w.each((u) => {
      switch (u) {
        case 'net_port_header':
        case 'variable_port_header':
          hasHeader = true;
          this.w.each((v) => {
            if (v === 'port_direction') port.direction = this.w.text() as PortDirection;
            else if (v === 'net_port_type' || v === 'variable_port_type') port.type = this.decls.dataType();
          });
          return;
        case 'interface_port_header':
          hasHeader = true;
          this.w.each((v) => {
            if (v === 'simple_identifier' && !port.interfaceType) port.interfaceType = this.w.text();
            else if (v === 'interface') port.interfaceType ??= 'interface';
          });
          return;
        case 'simple_identifier':
          if (!port.name) port.name = this.w.text();
          return;
        case 'unpacked_dimension':
        case 'variable_dimension':
          port.unpacked.push(this.w.flatText());
          return;
        default:
          return;
      }
    });
    return hasHeader;
  }

  nonAnsiPorts(mod: RawModule): void {
    this.w.each((t) => {
      const direction = (
        {
          input_declaration: 'input',
          output_declaration: 'output',
          inout_declaration: 'inout',
          ref_declaration: 'ref',
        } as Record<string, PortDirection | undefined>
      )[t];
      if (!direction) return;
      const range = this.w.range();
      let type: RawDataType | undefined;
      this.w.each((u) => {
        if (TYPE_WRAPPERS.has(u)) type = this.decls.dataType();
        else if (u.startsWith('list_of_') && u.includes('identifiers')) {
          const names: string[] = [];
          const dims = new Map<string, string[]>();
          this.decls.declNames(names, dims);
          for (const name of names) mod.ports.push({ name, direction, type, unpacked: dims.get(name) ?? [], range });
        }
      });
    });
  }
}

// direction? net-kind? keyword? signing? packed-dims name — with no nested brackets, defaults or user types
const SIMPLE_PORT =
  /^(?:(input|output|inout|ref)\s*)?(?:(wire|tri|wand|wor|triand|trior|tri0|tri1|uwire|supply0|supply1)\b\s*)?(?:(logic|reg|bit|byte|shortint|int|longint|integer|time)\b\s*)?(?:(signed|unsigned)\b\s*)?((?:\[[^[\]]*\]\s*)*)([A-Za-z_][\w$]*)$/;

/** An ANSI port declaration in one of its common textual shapes, or undefined to walk its nodes instead. */
function simplePort(
  text: string,
):
  | { name: string; direction?: PortDirection | undefined; type?: RawDataType | undefined; hasHeader: boolean }
  | undefined {
  const m = SIMPLE_PORT.exec(text);
  if (!m) return undefined;
  const [, direction, netType, keyword, signing, dims, name] = m;
  if (['input', 'output', 'inout', 'ref', 'wire', 'logic', 'reg', 'signed', 'unsigned'].includes(name))
    return undefined;
  const packed = dims.match(/\[[^\]]*\]/g)?.map((d) => d.replace(/\s+/g, ' ')) ?? [];
  const hasType = Boolean(netType || keyword || signing || packed.length);
  const type: RawDataType | undefined = hasType
    ? {
        text: [netType, keyword, signing, packed.join('')].filter(Boolean).join(' '),
        ...(keyword ? { keyword } : {}),
        ...(netType ? { netType } : {}),
        ...(signing ? { signing: signing as 'signed' | 'unsigned' } : {}),
        packed,
      }
    : undefined;
  return { name, direction: direction as PortDirection | undefined, type, hasHeader: Boolean(direction) || hasType };
}
