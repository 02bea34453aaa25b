import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import {
  DESKTOP_VIEWPORT,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAppPage,
  PHONE_VIEWPORT,
  screenshot,
  signIn,
} from './browser';
import { startPlatform, type RunningPlatform } from './platform';

const unique = randomBytes(4).toString('hex');
const ownerEmail = `data-owner-${unique}@example.com`;

/** A tiny real PNG (2×2, RGB), made here so the server detects its kind from the bytes. */
function tinyPng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0); // width
  header.writeUInt32BE(2, 4); // height
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: RGB
  // Each scanline: filter byte 0, then two RGB pixels.
  const pixels = Buffer.from([0, 50, 69, 184, 255, 255, 255, 0, 255, 255, 255, 50, 69, 184]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Bytes of a Windows program: an MZ header and binary noise with NULs. */
function programBytes(): Buffer {
  return Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), randomBytes(2048)]);
}

describe('workspace data (tables, tasks, contacts) in a browser', () => {
  let platform: RunningPlatform;
  let browser: Browser;
  let page: Page;
  let workspaceId = '';
  let ownerCookie = '';

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await openAppPage(browser, platform);
    ownerCookie = await platform.sessionCookie(ownerEmail);
  }, 150_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });
  const nav = () => page.getByRole('navigation', { name: 'Data Team workspace' });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const alert = (text: string | RegExp) => page.getByRole('alert').filter({ hasText: text });

  /** Calls the API as the owner (or `cookie`'s person), for what the test sets up in bulk. */
  async function api<T>(path: string, body?: unknown, cookie = ownerCookie): Promise<T> {
    const response = await platform.api(path, {
      method: body === undefined ? 'GET' : 'POST',
      cookie,
      body,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  test('sign in and create the workspace', async () => {
    await signIn(page, ownerEmail);
    await page.getByRole('heading', { name: 'Create your first workspace' }).waitFor();
    await page.getByRole('textbox', { name: 'Workspace name' }).fill('Data Team');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await heading('Data Team').waitFor();
    workspaceId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(workspaceId).toMatch(/^[0-9a-f-]{36}$/);
  }, 120_000);

  test('a table gets text columns and rows, and its full names are split', async () => {
    await nav().getByRole('link', { name: 'Tables' }).click();
    await heading('Tables').waitFor();
    await page.getByRole('heading', { name: 'No tables yet' }).waitFor();
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('button', { name: 'Create table' }).click();
    await page.getByText('Enter a value.').waitFor();
    await page.getByRole('textbox', { name: 'Table name' }).fill('Guests');
    await page.getByRole('button', { name: 'Create table' }).click();
    await heading('Guests').waitFor();
    expect(new URL(page.url()).pathname).toMatch(
      new RegExp(`^/app/w/${workspaceId}/tables/[0-9a-f-]{36}$`),
    );
    await page.getByRole('heading', { name: 'No columns yet' }).waitFor();

    for (const name of ['Full name', 'Last name']) {
      await page.getByRole('textbox', { name: 'Column name' }).fill(name);
      await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Text' });
      await page.getByRole('button', { name: 'Add column' }).click();
      await status(`Column ${name} added.`).waitFor();
    }
    const rows = page.getByRole('table', { name: 'Rows of Guests' });
    await rows.getByRole('columnheader', { name: 'Full name' }).waitFor();
    await rows.getByRole('columnheader', { name: 'Last name' }).waitFor();

    // A row with nothing filled in is refused at the form.
    await page.getByRole('button', { name: 'Add row' }).click();
    await alert('Fill in at least one field.').waitFor();
    for (const fullName of ['Ada Lovelace', 'Grace Hopper']) {
      await page.getByRole('textbox', { name: 'Full name', exact: true }).fill(fullName);
      await page.getByRole('button', { name: 'Add row' }).click();
      await rows.getByRole('cell', { name: fullName, exact: true }).waitFor();
    }
    await page.getByText('Showing 2 rows, all of them.').waitFor();

    const split = page.getByRole('region', { name: 'Split full names' });
    await split.getByRole('button', { name: 'Split names' }).click();
    await split.getByText('Choose the column with the full names.').waitFor();
    await split
      .getByRole('combobox', { name: 'Column with full names' })
      .selectOption({ label: 'Full name' });
    await split
      .getByRole('combobox', { name: 'Column for last names' })
      .selectOption({ label: 'Last name' });
    await split.getByRole('button', { name: 'Split names' }).click();
    const result = split.getByRole('status').filter({ hasText: 'Split Full name into Last name.' });
    await result.waitFor();
    expect(await result.getByRole('definition').allInnerTexts()).toEqual(['2', '4', 'Yes']);
    expect(await result.getByRole('term').allInnerTexts()).toEqual([
      'Names processed',
      'Cells written',
      'Last-name column updated',
    ]);
    // The refreshed rows: first names stay, last names moved.
    await rows.getByRole('cell', { name: 'Lovelace', exact: true }).waitFor();
    await rows.getByRole('cell', { name: 'Hopper', exact: true }).waitFor();
    expect(await rows.getByRole('cell', { name: 'Ada', exact: true }).count()).toBe(1);
    expect(await rows.getByRole('cell', { name: 'Grace', exact: true }).count()).toBe(1);
    expect(await rows.getByRole('cell', { name: 'Ada Lovelace' }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'table');

    // A second run finds every last name filled in and writes nothing.
    await split.getByRole('button', { name: 'Split names' }).click();
    await split.getByRole('definition').filter({ hasText: 'No' }).waitFor();
    expect(await result.getByRole('definition').allInnerTexts()).toEqual(['2', '0', 'No']);
  }, 180_000);

  test('a table opened by its address pages its rows with "Load more"', async () => {
    const { table } = await api<{ table: { id: string } }>('/tables', {
      workspaceId,
      name: 'Leads',
    });
    const { property } = await api<{ property: { id: string } }>(`/tables/${table.id}/properties`, {
      name: 'Company',
      type: 'text',
    });
    for (let start = 1; start <= 60; start += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, offset) =>
          api(`/tables/${table.id}/rows`, {
            cells: { [property.id]: `Company ${String(start + offset).padStart(2, '0')}` },
          }),
        ),
      );
    }
    await page.goto(`/app/w/${workspaceId}/tables/${table.id}`);
    await heading('Leads').waitFor();
    const rows = page.getByRole('table', { name: 'Rows of Leads' });
    await page.getByText('Showing 50 rows.').waitFor();
    expect(await rows.getByRole('row').count()).toBe(51);
    await page.getByRole('button', { name: 'Load more rows' }).click();
    await page.getByText('Showing 60 rows, all of them.').waitFor();
    expect(await rows.getByRole('row').count()).toBe(61);
    expect(await page.getByRole('button', { name: 'Load more rows' }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('link', { name: 'All tables' }).click();
    await heading('Tables').waitFor();
    // Newest first.
    const list = page.getByRole('region', { name: 'All tables' });
    await list.getByRole('link', { name: 'Leads' }).waitFor();
    expect(await list.getByRole('link').allInnerTexts()).toEqual(['Leads', 'Guests']);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'tables');
    await list.getByRole('link', { name: 'Guests' }).click();
    await heading('Guests').waitFor();
  }, 180_000);

  test('a task takes an uploaded PNG into a comment, and refuses what it cannot take', async () => {
    await nav().getByRole('link', { name: 'Tasks' }).click();
    await heading('Tasks').waitFor();
    await page.getByRole('heading', { name: 'No tasks yet' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('textbox', { name: 'Task title' }).fill('Prepare the launch');
    await page.getByRole('button', { name: 'Create task' }).click();
    await heading('Prepare the launch').waitFor();
    await page.getByRole('heading', { name: 'No comments yet' }).waitFor();
    const taskId = new URL(page.url()).pathname.split('/').pop() ?? '';

    const png = tinyPng();
    const files = page.getByLabel('Attach files');
    await files.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
    const progress = page.getByRole('progressbar', { name: 'Upload of logo.png' });
    await progress.waitFor();
    await page.getByText('Uploaded', { exact: true }).waitFor();
    expect(await progress.getAttribute('value')).toBe('100');
    await status('logo.png is uploaded and goes with your comment.').waitFor();

    await page.getByRole('textbox', { name: 'Comment' }).fill('Here is the logo for the launch.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await status('Comment added.').waitFor();
    const comment = page
      .getByRole('article')
      .filter({ hasText: 'Here is the logo for the launch.' });
    const link = comment.getByRole('link', { name: 'logo.png' });
    await link.waitFor();
    await comment.getByText(`(PNG image, ${png.length} bytes)`).waitFor();
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toMatch(
      new RegExp(`^/files/task-comments/${workspaceId}/${taskId}/[0-9a-f-]{36}\\.png$`),
    );
    const download = await page.request.get(href);
    expect(download.status()).toBe(200);
    expect(Buffer.from(await download.body()).equals(png)).toBe(true);
    // The composer is empty again for the next comment.
    expect(await page.getByRole('progressbar').count()).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'task');

    // A program is refused before it is sent; one named .png is refused by the server (415).
    await files.setInputFiles({
      name: 'setup.exe',
      mimeType: 'application/x-msdownload',
      buffer: programBytes(),
    });
    await alert('setup.exe is not a kind of file that can be attached').waitFor();
    await files.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: programBytes() });
    const refused = alert('photo.png was not uploaded.');
    await refused.waitFor();
    await refused.getByText('This kind of file or content is not accepted here.').waitFor();
    await files.setInputFiles({
      name: 'scan.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.alloc(11 * 1024 * 1024, 0x25),
    });
    await alert('scan.pdf is 11.0 MB, over the limit of 10 MB a file.').waitFor();
    await expectNoSeriousA11yViolations(page);

    // Nothing uploaded is left: the comment needs a text or a file.
    for (const name of ['setup.exe', 'photo.png', 'scan.pdf']) {
      await page.getByRole('button', { name: `Remove ${name}` }).click();
    }
    await page.getByRole('button', { name: 'Add comment' }).click();
    await alert('Write a comment or attach a file.').waitFor();
    expect(await page.getByRole('article').count()).toBe(1);

    // The task's address opens it again, with its comment; the tasks page lists it.
    await page.reload();
    await heading('Prepare the launch').waitFor();
    await page.getByRole('link', { name: 'logo.png' }).waitFor();
    await page.getByRole('link', { name: 'All tasks' }).click();
    await heading('Tasks').waitFor();
    await page
      .getByRole('region', { name: 'All tasks' })
      .getByRole('link', { name: 'Prepare the launch' })
      .click();
    await heading('Prepare the launch').waitFor();
  }, 180_000);

  test('a contact pages its 25 notes newest first and filters them by tag', async () => {
    await nav().getByRole('link', { name: 'Contacts' }).click();
    await heading('Contacts').waitFor();
    await page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
    await expectNoSeriousA11yViolations(page);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Ada Lovelace');
    await page.getByRole('textbox', { name: 'Email (optional)' }).fill('not-an-email');
    await page.getByRole('button', { name: 'Create contact' }).click();
    await page.getByText('Enter an email address, like name@example.com.').waitFor();
    await page.getByRole('textbox', { name: 'Email (optional)' }).fill('ada@example.com');
    await page.getByRole('button', { name: 'Create contact' }).click();
    await heading('Ada Lovelace').waitFor();
    await page.getByText('ada@example.com').waitFor();
    await page.getByRole('heading', { name: 'No notes yet' }).waitFor();
    const contactId = new URL(page.url()).pathname.split('/').pop() ?? '';

    // Created one after the other, so Note 25 is the newest; every fifth is about pricing.
    for (let index = 1; index <= 25; index += 1) {
      await api(`/contacts/${contactId}/notes`, {
        title: `Note ${index}`,
        content: `What we talked about, part ${index}.`,
        tags: index % 5 === 0 ? ['call', 'pricing'] : index % 2 === 0 ? ['email'] : ['call'],
      });
    }
    await page.reload();
    const notes = page.getByRole('list', { name: 'All notes' });
    const titles = () => notes.getByRole('heading', { level: 3 }).allInnerTexts();
    await page.getByText('Showing 20 notes.').waitFor();
    expect(await titles()).toEqual(Array.from({ length: 20 }, (_, i) => `Note ${25 - i}`));
    await page.getByRole('button', { name: 'Load more notes' }).click();
    await page.getByText('Showing 25 notes, all of them.').waitFor();
    expect(await titles()).toEqual(Array.from({ length: 25 }, (_, i) => `Note ${25 - i}`));
    expect(await page.getByRole('button', { name: 'Load more notes' }).count()).toBe(0);

    const filter = page.getByRole('search', { name: 'Filter notes' });
    await filter.getByRole('textbox', { name: 'Tag' }).fill('pricing');
    await filter.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('Showing 5 notes tagged pricing, all of them.').waitFor();
    expect(
      await page
        .getByRole('list', { name: 'Notes tagged pricing' })
        .getByRole('heading', { level: 3 })
        .allInnerTexts(),
    ).toEqual(['Note 25', 'Note 20', 'Note 15', 'Note 10', 'Note 5']);
    expect(new URL(page.url()).searchParams.get('tag')).toBe('pricing');
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'contact');

    // A note's tag filters by it too; "Show all notes" clears the filter.
    await page
      .getByRole('article')
      .filter({ hasText: 'Note 20' })
      .getByRole('link', { name: 'Show notes tagged call' })
      .click();
    await page.getByText('Showing 15 notes tagged call, all of them.').waitFor();
    await filter.getByRole('textbox', { name: 'Tag' }).fill('no-such-tag');
    await filter.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('heading', { name: 'No notes tagged no-such-tag' }).waitFor();
    await filter.getByRole('button', { name: 'Show all notes' }).click();
    // The unfiltered list comes back as far as it was read.
    await page.getByText('Showing 25 notes, all of them.').waitFor();

    await page.getByRole('textbox', { name: 'Title' }).fill('Call about the launch');
    await page.getByRole('textbox', { name: 'Content' }).fill('She will send the numbers.');
    await page.getByRole('textbox', { name: 'Tags' }).fill('call, follow-up');
    await page.getByRole('button', { name: 'Add note' }).click();
    await status('Note Call about the launch added.').waitFor();
    await notes.getByRole('heading', { level: 3, name: 'Call about the launch' }).waitFor();
    expect((await titles())[0]).toBe('Call about the launch');
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('link', { name: 'All contacts' }).click();
    await heading('Contacts').waitFor();
    await page.getByRole('region', { name: 'All contacts' }).getByText('ada@example.com').waitFor();
    await page.getByRole('link', { name: 'Ada Lovelace' }).click();
    await heading('Ada Lovelace').waitFor();
  }, 180_000);

  /** A second person of the workspace, who writes what the owner then sees by their name. */
  async function colleague(): Promise<{ cookie: string; name: string }> {
    const email = `bea-${unique}@example.com`;
    const cookie = await platform.sessionCookie(email);
    await api('/me', undefined, cookie);
    await api(`/workspaces/${workspaceId}/members`, { email, role: 'member' });
    return { cookie, name: `bea-${unique}` };
  }
  let bea: { cookie: string; name: string };

  test('a table is renamed; its rows and columns are edited and deleted; then the table', async () => {
    const { table } = await api<{ table: { id: string } }>('/tables', {
      workspaceId,
      name: 'Scratch',
    });
    for (const [name, type, config] of [
      ['Name', 'text', undefined],
      [
        'Stage',
        'select',
        {
          options: [
            { id: 'new', name: 'New' },
            { id: 'won', name: 'Won' },
          ],
        },
      ],
    ] as const) {
      await api(`/tables/${table.id}/properties`, { name, type, config });
    }
    await page.goto(`/app/w/${workspaceId}/tables/${table.id}`);
    await heading('Scratch').waitFor();

    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    const rename = page.getByRole('region', { name: 'Rename the table' });
    const nameField = rename.getByRole('textbox', { name: 'Table name' });
    expect(await nameField.evaluate((field) => field === document.activeElement)).toBe(true);
    await nameField.fill('Pipeline');
    await rename.getByRole('button', { name: 'Save' }).click();
    await heading('Pipeline').waitFor();
    expect(await rename.count()).toBe(0);

    // Rows added in the form; "Row added." goes once the next submission is refused.
    const rows = page.getByRole('table', { name: 'Rows of Pipeline' });
    const addRow = page.getByRole('region', { name: 'Add a row' });
    for (const [name, stage] of [
      ['Acme', 'New'],
      ['Globex', 'Won'],
    ] as const) {
      await addRow.getByRole('textbox', { name: 'Name' }).fill(name);
      await addRow.getByRole('combobox', { name: 'Stage' }).selectOption({ label: stage });
      await addRow.getByRole('button', { name: 'Add row' }).click();
      await rows.getByRole('cell', { name, exact: true }).waitFor();
    }
    await addRow.getByRole('status').filter({ hasText: 'Row added.' }).waitFor();
    await addRow.getByRole('button', { name: 'Add row' }).click();
    await addRow.getByRole('alert').filter({ hasText: 'Fill in at least one field.' }).waitFor();
    expect(await addRow.getByText('Row added.').count()).toBe(0);

    // A row edited in place of nothing else: its form opens focused on its first field.
    await rows.getByRole('button', { name: 'Edit row 1' }).click();
    const editor = page.getByRole('region', { name: 'Edit row 1' });
    const first = editor.getByRole('textbox', { name: 'Name' });
    expect(await first.inputValue()).toBe('Acme');
    expect(await first.evaluate((field) => field === document.activeElement)).toBe(true);
    await first.fill('Acme Corporation');
    await editor.getByRole('combobox', { name: 'Stage' }).selectOption({ label: 'None' });
    await editor.getByRole('button', { name: 'Save row' }).click();
    await rows.getByRole('cell', { name: 'Acme Corporation', exact: true }).waitFor();
    expect(await editor.count()).toBe(0);
    expect(await rows.getByRole('cell', { name: 'New', exact: true }).count()).toBe(0);

    await rows.getByRole('button', { name: 'Delete row 2' }).click();
    await rows
      .getByRole('group', { name: 'Confirm: Delete row 2' })
      .getByRole('button', { name: 'Delete row 2' })
      .click();
    await page.getByText('Showing 1 row, all of them.').waitFor();
    expect(await rows.getByRole('cell', { name: 'Globex' }).count()).toBe(0);

    // A column renamed and hidden, a select losing an option, a column deleted.
    const columns = page.getByRole('region', { name: 'Columns' });
    await columns.getByRole('button', { name: 'Edit column Stage' }).click();
    const stageForm = columns.getByRole('form', { name: 'Edit column Stage' });
    await stageForm.getByRole('textbox', { name: 'Column name' }).fill('Phase');
    await stageForm.getByRole('textbox', { name: 'Options' }).fill('New, Won, Lost');
    await stageForm.getByRole('button', { name: 'Save column' }).click();
    await rows.getByRole('columnheader', { name: 'Phase' }).waitFor();
    await columns.getByRole('button', { name: 'Edit column Name' }).click();
    const nameForm = columns.getByRole('form', { name: 'Edit column Name' });
    await nameForm.getByRole('checkbox', { name: 'Hide this column' }).check();
    await nameForm.getByRole('button', { name: 'Save column' }).click();
    await columns.getByText('Text, hidden').waitFor();
    expect(await rows.getByRole('columnheader', { name: 'Name' }).count()).toBe(0);
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'table-edited');

    await columns.getByRole('button', { name: 'Delete column Phase and its cells' }).click();
    await columns
      .getByRole('group', { name: 'Confirm: Delete column Phase and its cells' })
      .getByRole('button', { name: 'Delete column Phase and its cells' })
      .click();
    await page.getByText('1 column', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Pipeline and all its rows' }).click();
    await page
      .getByRole('group', { name: 'Confirm: Delete Pipeline and all its rows' })
      .getByRole('button', { name: 'Delete Pipeline and all its rows' })
      .click();
    await heading('Tables').waitFor();
    const list = page.getByRole('region', { name: 'All tables' });
    await list.getByRole('link', { name: 'Leads' }).waitFor();
    expect(await list.getByRole('link', { name: 'Pipeline' }).count()).toBe(0);
    const gone = await platform.api(`/tables/${table.id}`, { cookie: ownerCookie });
    expect(gone.status).toBe(404);
  }, 180_000);

  test('a task is renamed; comments show their authors, are edited by them and deleted; then the task', async () => {
    bea = await colleague();
    const { task } = await api<{ task: { id: string } }>('/tasks', {
      workspaceId,
      title: 'Plan the offsite',
    });
    await api(`/tasks/${task.id}/comments`, { body: 'I can book the venue.' }, bea.cookie);
    await page.goto(`/app/w/${workspaceId}/tasks/${task.id}`);
    await heading('Plan the offsite').waitFor();
    await page.getByRole('textbox', { name: 'Comment' }).fill('Thanks, I will do the agenda.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await status('Comment added.').waitFor();

    const theirs = page.getByRole('article', { name: new RegExp(`^Comment by ${bea.name}, `) });
    const mine = page.getByRole('article', { name: /^Comment by You, / });
    await theirs.getByText('I can book the venue.').waitFor();
    // The owner deletes anyone's comment but edits only their own.
    expect(await theirs.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    await mine.getByRole('button', { name: /^Edit your comment/ }).click();
    const text = mine.getByRole('textbox', { name: 'Comment' });
    expect(await text.evaluate((field) => field === document.activeElement)).toBe(true);
    await text.fill('Thanks, I will do the agenda by Friday.');
    await mine.getByRole('button', { name: 'Save comment' }).click();
    await mine.getByText('Thanks, I will do the agenda by Friday.').waitFor();
    await mine.getByText(/\(edited /).waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'task-comments-edited');

    await theirs.getByRole('button', { name: /^Delete the comment by / }).click();
    await theirs
      .getByRole('group')
      .getByRole('button', { name: /^Delete the comment by / })
      .click();
    await theirs.waitFor({ state: 'detached' });
    expect(await page.getByRole('article').count()).toBe(1);

    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('textbox', { name: 'Task title' }).fill('Plan the spring offsite');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await heading('Plan the spring offsite').waitFor();
    const deleteTask = 'Delete Plan the spring offsite with its comments and files';
    await page.getByRole('button', { name: deleteTask }).click();
    await page.getByRole('group').getByRole('button', { name: deleteTask }).click();
    await heading('Tasks').waitFor();
    const list = page.getByRole('region', { name: 'All tasks' });
    await list.getByRole('link', { name: 'Prepare the launch' }).waitFor();
    expect(await list.getByRole('link', { name: 'Plan the spring offsite' }).count()).toBe(0);
  }, 180_000);

  test('a contact is edited; notes show their authors, are edited by them and deleted; then the contact', async () => {
    const { contact } = await api<{ contact: { id: string } }>('/contacts', {
      workspaceId,
      name: 'Grace Hopper',
      email: 'grace@example.com',
    });
    await api(
      `/contacts/${contact.id}/notes`,
      { title: 'Intro', content: 'Met at a meetup.' },
      bea.cookie,
    );
    await api(`/contacts/${contact.id}/notes`, { title: 'Follow-up', content: 'Sent slides.' });
    await page.goto(`/app/w/${workspaceId}/contacts/${contact.id}`);
    await heading('Grace Hopper').waitFor();

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('region', { name: 'Edit the contact' });
    await edit.getByRole('textbox', { name: 'Email (optional)' }).fill('');
    await edit.getByRole('textbox', { name: 'Company ID (optional)' }).fill('navy');
    await edit.getByRole('button', { name: 'Save contact' }).click();
    await page.getByText('Company navy').waitFor();
    expect(await page.getByText('grace@example.com').count()).toBe(0);

    const notes = page.getByRole('list', { name: 'All notes' });
    const intro = notes.getByRole('article').filter({ hasText: 'Intro' });
    const followUp = notes.getByRole('article').filter({ hasText: 'Follow-up' });
    await intro.getByText(`${bea.name},`).waitFor();
    await followUp.getByText('You,').waitFor();
    expect(await intro.getByRole('button', { name: 'Edit note Intro' }).count()).toBe(0);

    await followUp.getByRole('button', { name: 'Edit note Follow-up' }).click();
    const editor = notes.getByRole('region', { name: 'Edit note Follow-up' });
    await editor.getByRole('textbox', { name: 'Content' }).fill('Sent slides and pricing.');
    await editor.getByRole('textbox', { name: 'Tags' }).fill('pricing');
    await editor.getByRole('button', { name: 'Save note' }).click();
    await notes.getByText('Sent slides and pricing.').waitFor();
    await notes.getByText('(edited)').waitFor();
    await expectNoSeriousA11yViolations(page);
    await screenshot(page, 'contact-notes-edited');

    await intro.getByRole('button', { name: 'Delete note Intro' }).click();
    await intro.getByRole('group').getByRole('button', { name: 'Delete note Intro' }).click();
    await page.getByText('Showing 1 note, all of them.').waitFor();

    const deleteContact = 'Delete Grace Hopper with their notes';
    await page.getByRole('button', { name: deleteContact }).click();
    await page.getByRole('group').getByRole('button', { name: deleteContact }).click();
    await heading('Contacts').waitFor();
    const list = page.getByRole('region', { name: 'All contacts' });
    await list.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
    expect(await list.getByRole('link', { name: 'Grace Hopper' }).count()).toBe(0);
  }, 180_000);

  test('each page load asks the API once per query, and aborts nothing', async () => {
    const { table } = await api<{ table: { id: string } }>('/tables', {
      workspaceId,
      name: 'Once',
    });
    const { task } = await api<{ task: { id: string } }>('/tasks', { workspaceId, title: 'Once' });
    const { contact } = await api<{ contact: { id: string } }>('/contacts', {
      workspaceId,
      name: 'Once',
    });
    const { conversation } = await api<{ conversation: { id: string } }>('/ai-chat/conversations', {
      workspaceId,
      title: 'Once',
    });
    const pages: [string, string][] = [
      [`/chats/${conversation.id}`, 'Once'],
      [`/chats/${conversation.id}/sharing`, 'Share “Once”'],
      ['', 'Data Team'],
      ['/members', 'Members'],
      ['/settings', 'Settings'],
      ['/api-keys', 'API keys'],
      ['/tables', 'Tables'],
      [`/tables/${table.id}`, 'Once'],
      ['/tasks', 'Tasks'],
      [`/tasks/${task.id}`, 'Once'],
      ['/contacts', 'Contacts'],
      [`/contacts/${contact.id}`, 'Once'],
      ['/chats', 'Chats'],
      ['/workflows', 'Workflows'],
      ['/mcp', 'MCP servers'],
      ['/approvals', 'Approvals'],
    ];
    const origin = new URL(page.url()).origin;
    /** The API requests (method and path) made and the requests aborted while `load` runs. */
    async function requestsOf(load: () => Promise<void>) {
      const asked: string[] = [];
      const aborted: string[] = [];
      const onRequest = (request: { url(): string; method(): string }) => {
        const url = new URL(request.url());
        if (url.origin === origin && !url.pathname.startsWith('/assets/')) {
          asked.push(`${request.method()} ${url.pathname}${url.search}`);
        }
      };
      const onFailed = (request: { url(): string }) => aborted.push(request.url());
      page.on('request', onRequest);
      page.on('requestfailed', onFailed);
      await load();
      await page.waitForLoadState('networkidle');
      // Requests still coming (a refetch after a settled first answer) count too.
      await page.waitForTimeout(300);
      page.off('request', onRequest);
      page.off('requestfailed', onFailed);
      return { twice: asked.filter((request, index) => asked.indexOf(request) !== index), aborted };
    }

    // Opened by their address...
    for (const [path, title] of pages) {
      const seen = await requestsOf(async () => {
        await page.goto(`/app/w/${workspaceId}${path}`);
        await heading(title).waitFor();
      });
      expect({ path, ...seen }).toEqual({ path, twice: [], aborted: [] });
    }
    // ...and reached through the navigation, as a person walks the app.
    await page.goto(`/app/w/${workspaceId}`);
    await heading('Data Team').waitFor();
    for (const entry of [
      'Members',
      'Settings',
      'API keys',
      'Chats',
      'Workflows',
      'Provider events',
      'Approvals',
      'MCP servers',
      'Tables',
      'Tasks',
      'Contacts',
      'Overview',
    ]) {
      const seen = await requestsOf(async () => {
        await nav().getByRole('link', { name: entry, exact: true }).click();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
      });
      expect({ entry, ...seen }).toEqual({ entry, twice: [], aborted: [] });
    }
    for (const [list, item] of [
      ['Tables', 'Once'],
      ['Tasks', 'Once'],
      ['Contacts', 'Once'],
    ] as const) {
      await nav().getByRole('link', { name: list, exact: true }).click();
      await heading(list).waitFor();
      const seen = await requestsOf(async () => {
        await page.getByRole('link', { name: item, exact: true }).first().click();
        await heading(item).waitFor();
      });
      expect({ list, ...seen }).toEqual({ list, twice: [], aborted: [] });
    }
  }, 180_000);

  test('a refused form brings its message into view with the focus; a corrected field drops its own', async () => {
    const { table } = await api<{ table: { id: string } }>('/tables', {
      workspaceId,
      name: 'Wide',
    });
    for (let index = 1; index <= 12; index += 1) {
      await api(`/tables/${table.id}/properties`, { name: `Field ${index}`, type: 'text' });
    }
    const inView = (target: ReturnType<Page['getByRole']>) =>
      target.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      });
    const focused = (target: ReturnType<Page['getByRole']>) =>
      target.evaluate((element) => element === document.activeElement);
    await page.setViewportSize(PHONE_VIEWPORT);
    try {
      // Twelve fields on a phone: the form's message is far above its button.
      await page.goto(`/app/w/${workspaceId}/tables/${table.id}`);
      await heading('Wide').waitFor();
      const addRow = page.getByRole('region', { name: 'Add a row' });
      const button = addRow.getByRole('button', { name: 'Add row' });
      await button.scrollIntoViewIfNeeded();
      await button.click();
      const refusal = addRow.getByRole('alert').filter({ hasText: 'Fill in at least one field.' });
      await refusal.waitFor();
      await page.waitForFunction(() =>
        document.activeElement?.textContent?.includes('Fill in at least one field.'),
      );
      expect(await inView(refusal)).toBe(true);

      // A field's message goes as soon as the field is corrected, before the next submission.
      await page.goto(`/app/w/${workspaceId}/contacts`);
      await heading('Contacts').waitFor();
      const name = page.getByRole('textbox', { name: 'Name', exact: true });
      const email = page.getByRole('textbox', { name: 'Email (optional)' });
      await email.fill('not-an-email');
      await page.getByRole('button', { name: 'Create contact' }).click();
      await page.getByText('Enter a value.').waitFor();
      await page.getByText('Enter an email address, like name@example.com.').waitFor();
      await page.waitForFunction(
        () => document.activeElement?.getAttribute('aria-invalid') === 'true',
      );
      expect(await focused(name)).toBe(true);
      expect(await inView(name)).toBe(true);
      await name.fill('Katherine Johnson');
      expect(await page.getByText('Enter a value.').count()).toBe(0);
      expect(await name.getAttribute('aria-invalid')).toBeNull();
      // The other field still holds what was refused.
      expect(await page.getByText('Enter an email address, like name@example.com.').count()).toBe(
        1,
      );
      await email.fill('');
      await page.getByRole('button', { name: 'Create contact' }).click();
      await heading('Katherine Johnson').waitFor();
    } finally {
      await page.setViewportSize(DESKTOP_VIEWPORT);
    }
  }, 180_000);
});
