/**
 * Declarations read from the syntax tree: data types (with enum and struct bodies), variables and nets,
 * typedefs, parameters and package imports. Shared by modules, packages and the compilation unit.
 */
import type { RawDataType, RawDecl, RawParam, RawScope } from './raw';
import type { Walker } from './walker';

/** Nodes that wrap a data type's parts. */
export const TYPE_WRAPPERS = new Set([
  'data_type',
  'data_type_or_implicit',
  'implicit_data_type',
  'net_port_type',
  'variable_port_type',
  'data_type_or_void',
  'var_data_type',
]);

export class DeclarationReader {
  constructor(private readonly w: Walker) {}

  /** Declarations shared by modules, packages and the compilation unit. True when handled. */
  item(type: string, scope: RawScope): boolean {
    switch (type) {
      case 'data_declaration':
        this.dataDeclaration(scope);
        return true;
      case 'net_declaration':
        this.netDeclaration(scope);
        return true;
      case 'type_declaration':
        this.typeDeclaration(scope);
        return true;
      case 'parameter_declaration':
      case 'local_parameter_declaration':
        this.params(scope.params, type === 'local_parameter_declaration');
        return true;
      case 'package_import_declaration':
        this.imports(scope);
        return true;
      default:
        return false;
    }
  }

  /** `import pkg::*;` adds `pkg`; `import pkg::name;` adds `pkg::name`. */
  imports(scope: RawScope): void {
    this.w.each((t) => {
      if (t === 'package_import_item') {
        const text = this.w.flatText().replace(/\s+/g, '');
        scope.imports.push(text.endsWith('::*') ? text.slice(0, -3) : text);
      }
    });
  }

  /** The data type whose node (data_type, net_port_type, …) the cursor is on. */
  dataType(): RawDataType {
    const t: RawDataType = { text: this.w.flatText(), packed: [] };
    this.typeParts(t);
    return t;
  }

  private typeParts(t: RawDataType): void {
    this.w.each((type) => {
      switch (type) {
        case 'integer_vector_type':
        case 'integer_atom_type':
        case 'non_integer_type':
          t.keyword = this.w.text();
          return;
        case 'string':
        case 'chandle':
        case 'event':
          t.keyword = type;
          return;
        case 'net_type':
          t.netType = this.w.text();
          return;
        case 'signed': // the keyword token
        case 'unsigned':
          if (t.structDef && !t.structDef.members.length) t.structDef.signing = type;
          t.signing = type;
          return;
        case 'signing':
          t.signing = this.w.text() === 'signed' ? 'signed' : 'unsigned';
          return;
        case 'packed_dimension':
          t.packed.push(this.w.flatText());
          return;
        case 'simple_identifier':
        case 'class_type':
        case 'ps_type_identifier':
        case 'type_identifier':
          if (!t.keyword) t.userType = this.w.flatText().replace(/\s+/g, '');
          return;
        case 'enum':
          t.enumDef ??= { members: [] };
          return;
        case 'enum_base_type':
          t.enumDef ??= { members: [] };
          t.enumDef.base = this.dataType();
          return;
        case 'enum_name_declaration':
          t.enumDef ??= { members: [] };
          t.enumDef.members.push(this.enumMember());
          return;
        case 'struct_union':
          t.structDef = { union: this.w.text().startsWith('union'), packed: false, members: [] };
          return;
        case 'packed':
          if (t.structDef) t.structDef.packed = true;
          return;
        case 'struct_union_member':
          t.structDef?.members.push(this.structMember());
          return;
        default:
          if (TYPE_WRAPPERS.has(type)) this.typeParts(t);
      }
    });
  }

  private enumMember(): { name: string; value?: string | undefined } {
    let name = '';
    let value: string | undefined;
    this.w.each((t) => {
      if (t === 'simple_identifier' && !name) name = this.w.text();
      else if (t === 'constant_expression') value = this.w.flatText();
    });
    return { name, value };
  }

  private structMember(): { type: RawDataType; names: string[] } {
    let type: RawDataType = { text: '', packed: [] };
    const names: string[] = [];
    this.w.each((t) => {
      if (t === 'data_type_or_void' || t === 'data_type') type = this.dataType();
      else if (t === 'list_of_variable_decl_assignments') this.declNames(names);
    });
    return { type, names };
  }

  /** Names (with their unpacked dimensions) of a list of declarations. */
  declNames(names: string[], unpacked?: Map<string, string[]>, inits?: Map<string, string>): void {
    this.w.each((t) => {
      if (t === 'variable_decl_assignment' || t === 'net_decl_assignment' || t === 'variable_identifier') {
        let name = '';
        let init: string | undefined;
        const dims: string[] = [];
        this.w.each((u) => {
          if (u === 'simple_identifier' && !name) name = this.w.text();
          else if (u === 'unpacked_dimension' || u === 'variable_dimension') dims.push(this.w.flatText());
          else if (u === 'expression' || u === 'class_new' || u === 'dynamic_array_new') init = this.w.flatText();
        });
        if (name) {
          names.push(name);
          unpacked?.set(name, dims);
          if (init !== undefined) inits?.set(name, init);
        }
      } else if (t === 'simple_identifier') names.push(this.w.text());
    });
  }

  private dataDeclaration(scope: RawScope): void {
    let type: RawDataType = { text: '', packed: [] };
    this.w.each((t) => {
      if (t === 'type_declaration') this.typeDeclaration(scope);
      else if (t === 'package_import_declaration') this.imports(scope);
      else if (TYPE_WRAPPERS.has(t)) type = this.dataType();
      else if (t === 'list_of_variable_decl_assignments') {
        const names: string[] = [];
        const dims = new Map<string, string[]>();
        const inits = new Map<string, string>();
        this.declNames(names, dims, inits);
        for (const name of names) scope.decls.push(declOf(name, type, dims, inits));
      }
    });
  }

  private netDeclaration(scope: RawScope): void {
    const type: RawDataType = { text: '', packed: [] };
    const texts: string[] = [];
    this.w.each((t) => {
      if (t === 'net_type') {
        type.netType = this.w.text();
        texts.push(type.netType);
      } else if (t === 'simple_identifier') {
        // a user-defined net type or typedef: `state_t s;` parses as a net declaration
        type.userType = this.w.text();
        texts.push(type.userType);
      } else if (TYPE_WRAPPERS.has(t)) {
        const inner = this.dataType();
        Object.assign(type, { ...inner, netType: type.netType, packed: inner.packed });
        texts.push(inner.text);
      } else if (t === 'signed' || t === 'unsigned') {
        type.signing = t;
        texts.push(t);
      } else if (t === 'list_of_net_decl_assignments') {
        type.text = texts.join(' ');
        const names: string[] = [];
        const dims = new Map<string, string[]>();
        const inits = new Map<string, string>();
        this.declNames(names, dims, inits);
        for (const name of names) scope.decls.push(declOf(name, type, dims, inits));
      }
    });
  }

  private typeDeclaration(scope: RawScope): void {
    let type: RawDataType | undefined;
    let name = '';
    this.w.each((t) => {
      if (TYPE_WRAPPERS.has(t)) type = this.dataType();
      else if (t === 'simple_identifier' && this.w.field === 'type_name') name = this.w.text();
      else if (t === 'simple_identifier' && type) name = this.w.text();
    });
    // `typedef enum state_t;` (a forward declaration) has no type.
    if (type && name) scope.typedefs.push({ name, type });
  }

  /** Parameter declarations: `parameter [int] A = 1, B = 2`, `localparam …`, `parameter type T = …`. */
  params(out: RawParam[], local: boolean, inherited?: RawDataType): void {
    let type = inherited;
    this.w.each((t) => {
      if (TYPE_WRAPPERS.has(t)) type = this.dataType();
      else if (t === 'list_of_param_assignments') this.paramAssignments(out, local, type);
      else if (t === 'param_assignment') this.paramAssignment(out, local, type);
      else if (t === 'type_parameter_declaration' || t === 'list_of_type_assignments') this.params(out, local);
      else if (t === 'type_assignment') {
        let name = '';
        let def = '';
        this.w.each((u) => {
          if (u === 'simple_identifier' && !name) name = this.w.text();
          else if (TYPE_WRAPPERS.has(u)) def = this.w.flatText();
        });
        if (name) out.push({ name, default: def, local, isType: true });
      }
    });
  }

  paramAssignments(out: RawParam[], local: boolean, type: RawDataType | undefined): void {
    this.w.each((t) => {
      if (t === 'param_assignment') this.paramAssignment(out, local, type);
    });
  }

  paramAssignment(out: RawParam[], local: boolean, type: RawDataType | undefined): void {
    const line = this.w.line();
    let name = '';
    let def = '';
    this.w.each((t) => {
      if (t === 'simple_identifier' && !name) name = this.w.text();
      else if (
        t === 'constant_param_expression' ||
        t === 'constant_mintypmax_expression' ||
        t === 'constant_expression'
      )
        def = this.w.flatText();
    });
    if (name) out.push({ name, default: def, local, isType: false, type, line });
  }
}

function declOf(name: string, type: RawDataType, dims: Map<string, string[]>, inits: Map<string, string>): RawDecl {
  const decl: RawDecl = { name, type, unpacked: dims.get(name) ?? [] };
  const init = inits.get(name);
  if (init !== undefined) decl.init = init;
  return decl;
}
