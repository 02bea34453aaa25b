import { randomUUID } from 'node:crypto';
import { eventually } from '@wap/testing';
import {
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type TestStack,
  uniqueEmail,
  type WorkspaceOwner,
} from './stack';

type Member = WorkspaceOwner;

interface Property {
  id: string;
  name: string;
  type: string;
  position: number;
}

/** Every rule of decision 63, as a row: the full name, then the first and last it splits into. */
const NAMES: [string, unknown, unknown, unknown][] = [
  ['plain', 'Ada Lovelace', 'Ada', 'Lovelace'],
  ['whitespace around and repeated', '  Grace \t  Hopper  ', 'Grace', 'Hopper'],
  ['middle names', 'John Ronald Reuel Tolkien', 'John Ronald Reuel', 'Tolkien'],
  ['"Last, First"', 'Curie, Marie', 'Marie', 'Curie'],
  ['single name', 'Cher', 'Cher', undefined],
  ['single name with spaces', '  Madonna ', 'Madonna', undefined],
  ['particle van', 'Ludwig van Beethoven', 'Ludwig', 'van Beethoven'],
  ['particles von der', 'Ursula von der Leyen', 'Ursula', 'von der Leyen'],
  ['particle de', 'Charles de Gaulle', 'Charles', 'de Gaulle'],
  ['particle da', 'Leonardo da Vinci', 'Leonardo', 'da Vinci'],
  ['particle di', 'Maria di Angelo', 'Maria', 'di Angelo'],
  ['particle le', 'Jean le Rond', 'Jean', 'le Rond'],
  ['particle bin', 'Mohammed bin Salman', 'Mohammed', 'bin Salman'],
  ['suffix Jr.', 'Martin Luther King Jr.', 'Martin Luther', 'King Jr.'],
  ['suffix Sr.', 'John Smith Sr.', 'John', 'Smith Sr.'],
  ['suffix II', 'John Smith II', 'John', 'Smith II'],
  ['suffix III', 'Thurston Howell III', 'Thurston', 'Howell III'],
  ['suffix PhD', 'Jane Doe PhD', 'Jane', 'Doe PhD'],
  ['title Dr.', 'Dr. Jane Goodall', 'Jane', 'Goodall'],
  ['title Mrs.', 'Mrs. Jane Smith', 'Jane', 'Smith'],
  ['hyphenated', 'Mary-Jane Smith-Jones', 'Mary-Jane', 'Smith-Jones'],
  ['Cyrillic', 'Иван Петров', 'Иван', 'Петров'],
  ['Japanese, family name first', '山田 太郎', '太郎', '山田'],
  ['empty', '', '', undefined],
  ['whitespace only', '   ', '   ', undefined],
  ['missing', undefined, undefined, undefined],
  ['null', null, null, undefined],
];

describe.each(RUNTIMES)(
  'tables and split-name through the gateway on the %s runtime',
  (runtime) => {
    let stack: TestStack;

    beforeAll(async () => {
      // Batches of four rows: a split crosses many batch boundaries.
      stack = await startStack(runtime, { services: { storage: { splitBatchSize: 4 } } });
    });
    afterAll(async () => {
      await stack.stop();
    });

    const newMember = (label: string) => newWorkspaceOwner(stack, label);

    async function newTable(member: Member, name = 'People'): Promise<string> {
      const created = await http(`${stack.url}/tables`, {
        method: 'POST',
        cookie: member.cookie,
        body: { workspaceId: member.workspaceId, name },
      });
      expect(created.status).toBe(201);
      return (created.body as { table: { id: string } }).table.id;
    }

    async function addProperty(
      member: Member,
      tableId: string,
      body: Record<string, unknown>,
    ): Promise<Property> {
      const created = await http(`${stack.url}/tables/${tableId}/properties`, {
        method: 'POST',
        cookie: member.cookie,
        body,
      });
      expect(created.status).toBe(201);
      return (created.body as { property: Property }).property;
    }

    async function addRow(member: Member, tableId: string, cells: Record<string, unknown>) {
      const created = await http(`${stack.url}/tables/${tableId}/rows`, {
        method: 'POST',
        cookie: member.cookie,
        body: { cells },
      });
      expect(created.status).toBe(201);
      return (created.body as { row: { id: string } }).row.id;
    }

    async function allRows(member: Member, tableId: string, limit: number) {
      const rows: { id: string; cells: Record<string, unknown> }[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const page = await http(`${stack.url}/tables/${tableId}/rows?limit=${limit}${query}`, {
          cookie: member.cookie,
        });
        expect(page.status).toBe(200);
        const body = page.body as { rows: typeof rows; nextCursor: string | null };
        rows.push(...body.rows);
        cursor = body.nextCursor;
      } while (cursor !== null);
      return rows;
    }

    test('a table with typed properties and rows, paged by cursor', async () => {
      const member = await newMember('tables');
      const tableId = await newTable(member);
      const name = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const score = await addProperty(member, tableId, {
        name: 'Score',
        type: 'number',
        config: { decimals: 2 },
      });
      const stage = await addProperty(member, tableId, {
        name: 'Stage',
        type: 'select',
        config: { options: [{ id: 'lead', name: 'Lead' }] },
      });
      expect([name.position, score.position, stage.position]).toEqual([0, 1, 2]);

      const table = await http(`${stack.url}/tables/${tableId}`, { cookie: member.cookie });
      expect(table.status).toBe(200);
      expect(table.body).toEqual({
        table: {
          id: tableId,
          workspace_id: member.workspaceId,
          name: 'People',
          created_by: expect.any(String),
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        properties: [
          {
            id: name.id,
            table_id: tableId,
            name: 'Name',
            type: 'text',
            config: {},
            position: 0,
            is_hidden: false,
          },
          {
            id: score.id,
            table_id: tableId,
            name: 'Score',
            type: 'number',
            config: { decimals: 2 },
            position: 1,
            is_hidden: false,
          },
          {
            id: stage.id,
            table_id: tableId,
            name: 'Stage',
            type: 'select',
            config: { options: [{ id: 'lead', name: 'Lead' }] },
            position: 2,
            is_hidden: false,
          },
        ],
      });

      const ids: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        ids.push(
          await addRow(member, tableId, {
            [name.id]: `Person ${index}`,
            [score.id]: index,
            [stage.id]: 'lead',
          }),
        );
      }
      const rows = await allRows(member, tableId, 2);
      expect(rows.map((row) => row.id)).toEqual(ids);
      expect(rows[4]?.cells).toEqual({ [name.id]: 'Person 4', [score.id]: 4, [stage.id]: 'lead' });
    });

    test('bad properties and cells are refused with the Error body', async () => {
      const member = await newMember('bad-cells');
      const tableId = await newTable(member);
      const unknownType = await http(`${stack.url}/tables/${tableId}/properties`, {
        method: 'POST',
        cookie: member.cookie,
        body: { name: 'X', type: 'formula' },
      });
      expect(unknownType.status).toBe(400);
      expect(unknownType.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: expect.any(Array),
      });
      const badConfig = await http(`${stack.url}/tables/${tableId}/properties`, {
        method: 'POST',
        cookie: member.cookie,
        body: { name: 'X', type: 'number', config: { decimals: 99 } },
      });
      expect(badConfig.status).toBe(400);
      expect(badConfig.body).toMatchObject({ code: 'VALIDATION_ERROR' });

      const score = await addProperty(member, tableId, { name: 'Score', type: 'number' });
      const wrongType = await http(`${stack.url}/tables/${tableId}/rows`, {
        method: 'POST',
        cookie: member.cookie,
        body: { cells: { [score.id]: 'ten' } },
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body).toEqual({
        error: 'Invalid cells',
        code: 'VALIDATION_ERROR',
        details: [{ path: `body.cells.${score.id}`, message: `${score.id} must be a number` }],
      });
      const unknownProperty = randomUUID();
      const notAProperty = await http(`${stack.url}/tables/${tableId}/rows`, {
        method: 'POST',
        cookie: member.cookie,
        body: { cells: { [unknownProperty]: 'x' } },
      });
      expect(notAProperty.status).toBe(400);
      const badCursor = await http(`${stack.url}/tables/${tableId}/rows?cursor=bm90ZXM6MQ`, {
        cookie: member.cookie,
      });
      expect(badCursor.status).toBe(400);
      expect(badCursor.body).toEqual({ error: 'Invalid cursor', code: 'INVALID_CURSOR' });
    });

    test('endpoint 5 splits every kind of name, with exact counts, and a second run writes 0', async () => {
      const member = await newMember('split');
      const tableId = await newTable(member);
      const fullName = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const lastName = await addProperty(member, tableId, { name: 'Last name', type: 'text' });
      const age = await addProperty(member, tableId, { name: 'Age', type: 'number' });
      const rowIds: string[] = [];
      for (const [, name] of NAMES) {
        rowIds.push(
          await addRow(member, tableId, name === undefined ? {} : { [fullName.id]: name }),
        );
      }
      // A row filled by hand keeps its last name; a number in the source is not a name.
      const filledByHand = await addRow(member, tableId, {
        [fullName.id]: 'Alan Turing',
        [lastName.id]: 'Kept',
      });
      const numberRow = await addRow(member, tableId, { [age.id]: 41 });

      const split = await http(`${stack.url}/tables/${tableId}/split-name`, {
        method: 'POST',
        cookie: member.cookie,
        body: { sourcePropertyId: fullName.id, targetPropertyId: lastName.id },
      });
      expect(split.status).toBe(200);
      const names = NAMES.filter(([, name]) => typeof name === 'string' && name.trim() !== '');
      const sourceChanges = names.filter(([, name, first]) => name !== first).length;
      const targetWrites = names.filter(([, , , last]) => last !== undefined).length;
      expect(split.body).toEqual({
        properties: [
          expect.objectContaining({ id: fullName.id, name: 'Name', type: 'text', position: 0 }),
          expect.objectContaining({
            id: lastName.id,
            name: 'Last name',
            type: 'text',
            position: 1,
          }),
          expect.objectContaining({ id: age.id, type: 'number', position: 2 }),
        ],
        targetPropertyUpdated: true,
        // Every row whose source holds a name, the hand-filled one included.
        cellsProcessed: names.length + 1,
        cellsWritten: sourceChanges + targetWrites,
      });

      const rows = await allRows(member, tableId, 7);
      const byId = new Map(rows.map((row) => [row.id, row.cells]));
      NAMES.forEach(([rule, , first, last], index) => {
        const cells = byId.get(rowIds[index] ?? '') ?? {};
        expect({ rule, first: cells[fullName.id], last: cells[lastName.id] }).toEqual({
          rule,
          first,
          last,
        });
      });
      expect(byId.get(filledByHand)).toEqual({
        [fullName.id]: 'Alan Turing',
        [lastName.id]: 'Kept',
      });
      expect(byId.get(numberRow)).toEqual({ [age.id]: 41 });

      const again = await http(`${stack.url}/tables/${tableId}/split-name`, {
        method: 'POST',
        cookie: member.cookie,
        body: { sourcePropertyId: fullName.id, targetPropertyId: lastName.id },
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        targetPropertyUpdated: false,
        cellsProcessed: names.length + 1,
        cellsWritten: 0,
      });
    });

    test('endpoint 5 refuses properties that do not fit', async () => {
      const member = await newMember('split-errors');
      const tableId = await newTable(member);
      const otherTableId = await newTable(member, 'Other');
      const name = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const last = await addProperty(member, tableId, { name: 'Last', type: 'text' });
      const age = await addProperty(member, tableId, { name: 'Age', type: 'number' });
      const foreign = await addProperty(member, otherTableId, { name: 'Name', type: 'text' });
      const split = (body: unknown) =>
        http(`${stack.url}/tables/${tableId}/split-name`, {
          method: 'POST',
          cookie: member.cookie,
          body,
        });

      const same = await split({ sourcePropertyId: name.id, targetPropertyId: name.id });
      expect(same.status).toBe(400);
      expect(same.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [
          expect.objectContaining({
            path: 'body.targetPropertyId',
            message: 'sourcePropertyId and targetPropertyId must be different properties',
          }),
        ],
      });
      const missing = await split({ sourcePropertyId: name.id });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      const notUuid = await split({ sourcePropertyId: 'name', targetPropertyId: last.id });
      expect(notUuid.status).toBe(400);

      const otherTable = await split({ sourcePropertyId: foreign.id, targetPropertyId: last.id });
      expect(otherTable.status).toBe(404);
      expect(otherTable.body).toEqual({
        error: 'Source property not found in this table',
        code: 'NOT_FOUND',
      });
      const unknownTarget = await split({
        sourcePropertyId: name.id,
        targetPropertyId: randomUUID(),
      });
      expect(unknownTarget.status).toBe(404);
      expect(unknownTarget.body).toEqual({
        error: 'Target property not found in this table',
        code: 'NOT_FOUND',
      });
      const numberSource = await split({ sourcePropertyId: age.id, targetPropertyId: last.id });
      expect(numberSource.status).toBe(400);
      expect(numberSource.body).toEqual({
        error: 'The source property must be a text property (it is number)',
        code: 'PROPERTY_NOT_TEXT',
      });
      const numberTarget = await split({ sourcePropertyId: name.id, targetPropertyId: age.id });
      expect(numberTarget.status).toBe(400);
      expect(numberTarget.body).toMatchObject({ code: 'PROPERTY_NOT_TEXT' });
      const unknownTable = await http(`${stack.url}/tables/${randomUUID()}/split-name`, {
        method: 'POST',
        cookie: member.cookie,
        body: { sourcePropertyId: name.id, targetPropertyId: last.id },
      });
      expect(unknownTable.status).toBe(404);
      expect(unknownTable.body).toEqual({ error: 'Table not found', code: 'NOT_FOUND' });
    });

    test('a workflow’s table_row step adds a row, by property name, to a table of its workspace', async () => {
      const member = await newMember('table-row');
      const other = await newMember('table-row-other');
      const tableId = await newTable(member);
      const foreignTableId = await newTable(other);
      const name = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const score = await addProperty(member, tableId, { name: 'Score', type: 'number' });
      const admin = await stack.cookieFor(uniqueEmail('table-row-admin'), { platformAdmin: true });
      const granted = await http(`${stack.url}/workspaces/${member.workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: admin,
        body: { amount: 10, reason: 'table_row step' },
      });
      expect(granted.status).toBe(201);
      const runOf = async (targetTableId: string) => {
        const created = await http(`${stack.url}/workflows`, {
          method: 'POST',
          cookie: member.cookie,
          body: {
            workspaceId: member.workspaceId,
            name: 'Add a row',
            trigger: { type: 'custom_webhook' },
            steps: [
              {
                type: 'table_row',
                name: 'add',
                settings: { tableId: targetTableId, values: { Name: 'Ada Lovelace', Score: 7 } },
              },
            ],
          },
        });
        const workflowId = (created.body as { workflow: { id: string } }).workflow.id;
        const run = await http(`${stack.url}/workflows/${workflowId}/run`, {
          method: 'POST',
          cookie: member.cookie,
        });
        const { runId } = run.body as { runId: string };
        return eventually(async () => {
          const current = await http(`${stack.url}/runs/${runId}`, { cookie: member.cookie });
          const body = current.body as {
            run: { status: string; steps: { status: string; error?: string | null }[] };
          };
          expect(['succeeded', 'failed']).toContain(body.run.status);
          return body.run;
        });
      };

      const added = await runOf(tableId);
      expect(added.status).toBe('succeeded');
      const rows = await allRows(member, tableId, 10);
      expect(rows.map((row) => row.cells)).toEqual([{ [name.id]: 'Ada Lovelace', [score.id]: 7 }]);

      const refused = await runOf(foreignTableId);
      expect(refused.status).toBe('failed');
      expect(refused.steps[0]?.error).toBe('The table service failed: Table not found');
      expect(await allRows(other, foreignTableId, 10)).toEqual([]);
    });

    test('a member of workspace A gets 404, never data, on every table route with ids of B', async () => {
      const a = await newMember('a');
      const b = await newMember('b');
      const tableId = await newTable(b);
      const name = await addProperty(b, tableId, { name: 'Name', type: 'text' });
      const last = await addProperty(b, tableId, { name: 'Last', type: 'text' });
      const rowId = await addRow(b, tableId, { [name.id]: 'Ada Lovelace' });
      const requests: [string, string, unknown][] = [
        ['GET', `/tables/${tableId}`, undefined],
        ['GET', `/tables/${tableId}/rows`, undefined],
        ['POST', `/tables/${tableId}/rows`, { cells: {} }],
        ['POST', `/tables/${tableId}/properties`, { name: 'X', type: 'text' }],
        [
          'POST',
          `/tables/${tableId}/split-name`,
          { sourcePropertyId: name.id, targetPropertyId: last.id },
        ],
        ['POST', '/tables', { workspaceId: b.workspaceId, name: 'intruder' }],
        ['PATCH', `/tables/${tableId}`, { name: 'taken over' }],
        ['PATCH', `/tables/${tableId}/properties/${name.id}`, { name: 'Renamed' }],
        ['PATCH', `/tables/${tableId}/rows/${rowId}`, { cells: { [name.id]: 'Eve' } }],
        ['DELETE', `/tables/${tableId}/rows/${rowId}`, undefined],
        ['DELETE', `/tables/${tableId}/properties/${name.id}`, undefined],
        ['DELETE', `/tables/${tableId}`, undefined],
      ];
      for (const [method, path, body] of requests) {
        const response = await http(`${stack.url}${path}`, { method, cookie: a.cookie, body });
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        expect(response.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
      }
      const unchanged = await allRows(b, tableId, 10);
      expect(unchanged.map((row) => row.cells)).toEqual([{ [name.id]: 'Ada Lovelace' }]);
      const table = await http(`${stack.url}/tables/${tableId}`, { cookie: b.cookie });
      expect(table.body).toMatchObject({
        table: { name: 'People' },
        properties: [{ name: 'Name' }, { name: 'Last' }],
      });
    });

    test('a table, its properties and rows are renamed, changed and deleted', async () => {
      const member = await newMember('changes');
      const tableId = await newTable(member, 'Leads');
      const name = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const stage = await addProperty(member, tableId, {
        name: 'Stage',
        type: 'select',
        config: {
          options: [
            { id: 'new', name: 'New' },
            { id: 'won', name: 'Won' },
          ],
        },
      });
      const labels = await addProperty(member, tableId, {
        name: 'Labels',
        type: 'multi_select',
        config: {
          options: [
            { id: 'a', name: 'A' },
            { id: 'b', name: 'B' },
          ],
        },
      });
      const first = await addRow(member, tableId, {
        [name.id]: 'Ada',
        [stage.id]: 'won',
        [labels.id]: ['a', 'b'],
      });
      const second = await addRow(member, tableId, { [name.id]: 'Grace', [stage.id]: 'new' });
      const patch = (path: string, body: unknown) =>
        http(`${stack.url}${path}`, { method: 'PATCH', cookie: member.cookie, body });
      const remove = (path: string) =>
        http(`${stack.url}${path}`, { method: 'DELETE', cookie: member.cookie });

      const renamed = await patch(`/tables/${tableId}`, { name: '  Customers ' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        table: { id: tableId, name: 'Customers' },
        properties: [{ id: name.id }, { id: stage.id }, { id: labels.id }],
      });

      // A row: only the cells sent change; null empties one; a wrong type is refused whole.
      const edited = await patch(`/tables/${tableId}/rows/${first}`, {
        cells: { [name.id]: 'Ada Lovelace', [labels.id]: null },
      });
      expect(edited.status).toBe(200);
      expect((edited.body as { row: { cells: unknown } }).row.cells).toEqual({
        [name.id]: 'Ada Lovelace',
        [stage.id]: 'won',
        [labels.id]: null,
      });
      const wrong = await patch(`/tables/${tableId}/rows/${first}`, {
        cells: { [name.id]: 'kept?', [stage.id]: 'lost' },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      const unknownRow = await patch(`/tables/${tableId}/rows/${randomUUID()}`, { cells: {} });
      expect(unknownRow.status).toBe(404);

      // A property: renamed and hidden; its type stays; a select losing an option empties it.
      const hidden = await patch(`/tables/${tableId}/properties/${name.id}`, {
        name: 'Full name',
        is_hidden: true,
      });
      expect(hidden.body).toEqual({
        property: expect.objectContaining({ name: 'Full name', is_hidden: true, type: 'text' }),
      });
      const retyped = await patch(`/tables/${tableId}/properties/${name.id}`, { type: 'number' });
      expect(retyped.status).toBe(400);
      const badConfig = await patch(`/tables/${tableId}/properties/${stage.id}`, {
        config: { options: 'won' },
      });
      expect(badConfig.status).toBe(400);
      expect(badConfig.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ path: 'body.config.options' })],
      });
      const narrowed = await patch(`/tables/${tableId}/properties/${stage.id}`, {
        config: { options: [{ id: 'new', name: 'Fresh' }] },
      });
      expect(narrowed.status).toBe(200);
      await addRow(member, tableId, { [labels.id]: ['a', 'b'] });
      await patch(`/tables/${tableId}/properties/${labels.id}`, {
        config: { options: [{ id: 'b', name: 'B' }] },
      });
      const afterOptions = await allRows(member, tableId, 10);
      expect(afterOptions.map((row) => row.cells)).toEqual([
        { [name.id]: 'Ada Lovelace', [labels.id]: null },
        { [name.id]: 'Grace', [stage.id]: 'new' },
        { [labels.id]: ['b'] },
      ]);

      // Deleting a property takes its cells from every row; deleting a row takes only it.
      expect((await remove(`/tables/${tableId}/properties/${stage.id}`)).status).toBe(204);
      expect((await remove(`/tables/${tableId}/properties/${stage.id}`)).status).toBe(404);
      expect((await remove(`/tables/${tableId}/rows/${second}`)).status).toBe(204);
      expect((await remove(`/tables/${tableId}/rows/${second}`)).status).toBe(404);
      const left = await allRows(member, tableId, 10);
      expect(left.map((row) => row.cells)).toEqual([
        { [name.id]: 'Ada Lovelace', [labels.id]: null },
        { [labels.id]: ['b'] },
      ]);
      const cellOfDeleted = await patch(`/tables/${tableId}/rows/${first}`, {
        cells: { [stage.id]: 'new' },
      });
      expect(cellOfDeleted.status).toBe(400);

      // Deleting the table takes everything; its id then answers 404 everywhere.
      expect((await remove(`/tables/${tableId}`)).status).toBe(204);
      for (const path of [`/tables/${tableId}`, `/tables/${tableId}/rows`]) {
        const gone = await http(`${stack.url}${path}`, { cookie: member.cookie });
        expect({ path, status: gone.status }).toEqual({ path, status: 404 });
      }
      const list = await http(`${stack.url}/tables?workspaceId=${member.workspaceId}`, {
        cookie: member.cookie,
      });
      expect((list.body as { tables: { id: string }[] }).tables.map((t) => t.id)).not.toContain(
        tableId,
      );
    });

    test('rows written while their table is deleted either land before it or answer 404', async () => {
      const member = await newMember('race');
      const tableId = await newTable(member, 'Doomed');
      const name = await addProperty(member, tableId, { name: 'Name', type: 'text' });
      const writes = Array.from({ length: 20 }, (_, index) =>
        http(`${stack.url}/tables/${tableId}/rows`, {
          method: 'POST',
          cookie: member.cookie,
          body: { cells: { [name.id]: `row ${index}` } },
        }),
      );
      const deletion = http(`${stack.url}/tables/${tableId}`, {
        method: 'DELETE',
        cookie: member.cookie,
      });
      const answers = await Promise.all([...writes, deletion]);
      expect((answers.at(-1) as { status: number }).status).toBe(204);
      for (const answer of answers.slice(0, -1)) expect([201, 404]).toContain(answer.status);
    });
  },
);
