/**
 * main.ts builds the parts in dependency order: a statement mentions only what is declared above
 * it, closures included (a callback into a part built later is a forward reference that works only
 * because nobody calls it too early). Pure (no test runner), like imports.ts, so that it runs on
 * the real main.ts and on fakes.
 *
 * Names are resolved by TypeScript's checker, so that a closure's parameter or an object's
 * property that happens to share a part's name is not taken for the part. `let` and `var` are
 * refused outright: a part assigned after it is built is a forward reference in disguise.
 */
import ts from 'typescript';

interface Declared {
  index: number;
  name: string;
  line: number;
  /** A variable: mentioning itself in its own initializer is a forward reference too. */
  variable: boolean;
}

const lineOf = (source: ts.SourceFile, node: ts.Node) =>
  source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

/** The identifiers a declaration binds (destructuring included). */
function boundNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  return name.elements.flatMap((element) => (ts.isBindingElement(element) ? boundNames(element.name) : []));
}

function declaredNames(statement: ts.Statement): { names: ts.Identifier[]; variable: boolean } {
  if (ts.isVariableStatement(statement))
    return { names: statement.declarationList.declarations.flatMap((d) => boundNames(d.name)), variable: true };
  if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name !== undefined)
    return { names: [statement.name], variable: false };
  return { names: [], variable: false };
}

/** Whether the identifier is the name a declaration binds, not a mention of it. */
function isDeclarationName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    ((ts.isVariableDeclaration(parent) ||
      ts.isBindingElement(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isClassDeclaration(parent) ||
      ts.isParameter(parent)) &&
      parent.name === node) ||
    (ts.isBindingElement(parent) && parent.propertyName === node)
  );
}

function symbolOf(checker: ts.TypeChecker, node: ts.Identifier): ts.Symbol | undefined {
  if (ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node)
    return checker.getShorthandAssignmentValueSymbol(node.parent);
  return checker.getSymbolAtLocation(node);
}

function describe(statement: ts.Statement, declared: readonly ts.Identifier[]): string {
  return declared.length > 0
    ? `\`${declared.map((id) => id.text).join(', ')}\``
    : `\`${statement.getText().split('\n')[0]?.slice(0, 60)}\``;
}

function checkStatements(
  statements: readonly ts.Statement[],
  source: ts.SourceFile,
  checker: ts.TypeChecker,
  file: string,
): string[] {
  const declaredAt = new Map<ts.Symbol, Declared>();
  const namesAt = statements.map((statement, index) => {
    const { names, variable } = declaredNames(statement);
    for (const name of names) {
      const symbol = checker.getSymbolAtLocation(name);
      if (symbol !== undefined)
        declaredAt.set(symbol, { index, name: name.text, line: lineOf(source, name), variable });
    }
    return names;
  });
  const found: string[] = [];
  statements.forEach((statement, index) => {
    const reported = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && !isDeclarationName(node)) {
        const symbol = symbolOf(checker, node);
        const target = symbol === undefined ? undefined : declaredAt.get(symbol);
        const forward = target !== undefined && (target.index > index || (target.index === index && target.variable));
        if (target !== undefined && forward && !reported.has(target.name)) {
          reported.add(target.name);
          const where =
            target.index === index
              ? 'itself, in its own construction'
              : `\`${target.name}\`, declared below it (line ${target.line})`;
          found.push(
            `${file}:${lineOf(source, node)}: ${describe(statement, namesAt[index] ?? [])} mentions ${where}: each part is built from parts above it`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(statement);
  });
  return found;
}

function mutableDeclarations(source: ts.SourceFile, file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.BlockScoped) !== ts.NodeFlags.Const) {
      const kind = node.flags & ts.NodeFlags.Let ? 'let' : 'var';
      const names = node.declarations.flatMap((d) => boundNames(d.name)).map((id) => id.text);
      found.push(
        `${file}:${lineOf(source, node)}: \`${kind} ${names.join(', ')}\`: a part assigned after it is built is a forward reference; build it once, from parts above it`,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every forward reference and every `let`/`var` in the file, one line each. */
export function checkBuildOrder(path: string, name = path): string[] {
  const program = ts.createProgram([path], {
    noResolve: true,
    noLib: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const source = program.getSourceFile(path);
  if (source === undefined) throw new Error(`cannot read ${path}`);
  const checker = program.getTypeChecker();
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isSourceFile(node) || ts.isBlock(node) || ts.isModuleBlock(node))
      found.push(...checkStatements(node.statements, source, checker, name));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found, ...mutableDeclarations(source, name)];
}
