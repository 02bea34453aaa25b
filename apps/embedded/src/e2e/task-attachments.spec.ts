import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ATTACHMENT_MAX_BYTES, TASK_FILES_BUCKET } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { ALLOWED_FILES, executableNamedPng, SVG_WITH_SCRIPT } from './attachment-files';
import {
  addWorkspaceMember,
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

type Member = WorkspaceOwner;

interface Attachment {
  url: string;
  name: string;
  type: string;
  size: number;
}

describe.each(RUNTIMES)('tasks and comment attachments on the %s runtime', (runtime) => {
  let stack: TestStack;
  /** Every object the gateway started to write, to check that refused uploads leave none. */
  const written: string[] = [];

  beforeAll(async () => {
    stack = await startStack(runtime);
    const objects = stack.platform.objects;
    const put = objects.put.bind(objects);
    objects.put = (bucket, name, content, meta) => {
      if (bucket === TASK_FILES_BUCKET) written.push(name);
      return put(bucket, name, content, meta);
    };
  });
  afterAll(async () => {
    await stack.stop();
  });

  const newMember = (label: string) => newWorkspaceOwner(stack, label);

  async function newTask(member: Member): Promise<string> {
    const created = await http(`${stack.url}/tasks`, {
      method: 'POST',
      cookie: member.cookie,
      body: { workspaceId: member.workspaceId, title: 'Ship it' },
    });
    expect(created.status).toBe(201);
    return (created.body as { task: { id: string } }).task.id;
  }

  async function upload(
    member: Member,
    taskId: string,
    file: { name: string; bytes: Uint8Array; type?: string },
    workspaceId: string | null = member.workspaceId,
  ) {
    const form = new FormData();
    // The client's Content-Type is a lie on purpose where given: the kind comes from the bytes.
    form.append('file', new Blob([file.bytes], { type: file.type ?? 'image/png' }), file.name);
    if (workspaceId !== null) form.append('workspaceId', workspaceId);
    const response = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
      method: 'POST',
      headers: { cookie: member.cookie },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  async function objectsLeftBy(names: string[]): Promise<string[]> {
    const left: string[] = [];
    for (const name of names) {
      if (await stack.platform.objects.info(TASK_FILES_BUCKET, name)) left.push(name);
    }
    return left;
  }

  test('a task, and one file of each allowed kind: typed from its bytes, stored, downloaded', async () => {
    const member = await newMember('attach');
    const taskId = await newTask(member);
    const task = await http(`${stack.url}/tasks/${taskId}`, { cookie: member.cookie });
    expect(task.body).toEqual({
      task: {
        id: taskId,
        workspace_id: member.workspaceId,
        title: 'Ship it',
        created_by: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const folder = `/files/task-comments/${member.workspaceId}/${taskId}/`;
    for (const [name, bytes, type] of ALLOWED_FILES) {
      const response = await upload(member, taskId, { name, bytes });
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
      const attachment = response.body as Attachment;
      expect(attachment).toEqual({
        url: expect.stringMatching(new RegExp(`^${folder}[0-9a-f-]{36}\\.[a-z]+$`, 'u')),
        name,
        type,
        size: bytes.length,
      });
      const download = await fetch(`${stack.url}${attachment.url}`, {
        headers: { cookie: member.cookie },
      });
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
      expect(download.headers.get('content-type')).toBe(type);
      // HEAD answers the same headers, and no body.
      const head = await fetch(`${stack.url}${attachment.url}`, {
        method: 'HEAD',
        headers: { cookie: member.cookie },
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect(head.headers.get('content-disposition')).toBe(
        download.headers.get('content-disposition'),
      );
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      expect(download.headers.get('content-disposition')).toBe(
        `attachment; filename="${name}"; filename*=UTF-8''${name}`,
      );
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    }
  });

  test('comments carry attachments uploaded to their task only', async () => {
    const member = await newMember('comments');
    const taskId = await newTask(member);
    const otherTaskId = await newTask(member);
    const uploaded = (await upload(member, taskId, { name: 'notes.txt', bytes: Buffer.from('hi') }))
      .body as Attachment;
    const elsewhere = (
      await upload(member, otherTaskId, { name: 'x.txt', bytes: Buffer.from('other task') })
    ).body as Attachment;
    const comment = await http(`${stack.url}/tasks/${taskId}/comments`, {
      method: 'POST',
      cookie: member.cookie,
      body: { body: 'See the notes', attachments: [{ ...uploaded, name: 'renamed.exe' }] },
    });
    expect(comment.status).toBe(201);
    expect(comment.body).toEqual({
      comment: {
        id: expect.any(String),
        task_id: taskId,
        workspace_id: member.workspaceId,
        body: 'See the notes',
        attachments: [uploaded],
        created_by: expect.any(String),
        created_at: expect.any(String),
        edited_at: null,
      },
    });
    const foreign = await http(`${stack.url}/tasks/${taskId}/comments`, {
      method: 'POST',
      cookie: member.cookie,
      body: { body: 'Not mine', attachments: [elsewhere] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    const listed = await http(`${stack.url}/tasks/${taskId}/comments`, { cookie: member.cookie });
    expect(listed.body).toEqual({ comments: [(comment.body as { comment: unknown }).comment] });
  });

  test('refusals: 10 MB + 1 byte is 413, an executable named .png 415, both leave no file', async () => {
    const member = await newMember('refused');
    const taskId = await newTask(member);
    const before = written.length;

    const exactly = Buffer.alloc(ATTACHMENT_MAX_BYTES, 'a');
    const atLimit = await upload(member, taskId, { name: 'big.txt', bytes: exactly });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toMatchObject({ size: ATTACHMENT_MAX_BYTES, type: 'text/plain' });

    const over = Buffer.alloc(ATTACHMENT_MAX_BYTES + 1, 'a');
    const tooLarge = await upload(member, taskId, { name: 'big.txt', bytes: over });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({
      error: 'The file is larger than the limit of 10 MB',
      code: 'PAYLOAD_TOO_LARGE',
    });

    const executable = await upload(member, taskId, {
      name: 'cat.png',
      bytes: executableNamedPng(),
      type: 'image/png',
    });
    expect(executable.status).toBe(415);
    expect(executable.body).toEqual({
      error:
        'The file is not of an allowed kind: JPEG, PNG, GIF, WebP, SVG, PDF, Word, Excel, plain text or CSV',
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    const binaryAfterText = Buffer.concat([Buffer.alloc(70 * 1024, 'a'), Buffer.from([0, 1, 2])]);
    const disguised = await upload(member, taskId, { name: 'a.txt', bytes: binaryAfterText });
    expect(disguised.status).toBe(415);

    const refusedNames = written.slice(before + 1);
    expect(refusedNames).toHaveLength(3);
    expect(await objectsLeftBy(refusedNames)).toEqual([]);
  });

  test('a stored name carries the extension of the kind found in the bytes', async () => {
    const member = await newMember('renamed');
    const taskId = await newTask(member);
    const png = ALLOWED_FILES.find(([, , type]) => type === 'image/png');
    const jpeg = ALLOWED_FILES.find(([, , type]) => type === 'image/jpeg');
    if (!png || !jpeg) throw new Error('the allowed files lack a PNG or a JPEG');
    for (const [name, bytes, expected] of [
      ['x.html', png[1], 'x.png'],
      ['invoice', png[1], 'invoice.png'],
      ['report.PDF.exe', png[1], 'report.PDF.png'],
      ['holiday.JPEG', jpeg[1], 'holiday.JPEG'],
    ] as const) {
      const uploaded = await upload(member, taskId, { name, bytes, type: 'text/html' });
      expect({ name, status: uploaded.status }).toEqual({ name, status: 200 });
      const attachment = uploaded.body as Attachment;
      expect({ name, stored: attachment.name }).toEqual({ name, stored: expected });
      const download = await fetch(`${stack.url}${attachment.url}`, {
        headers: { cookie: member.cookie },
      });
      expect(download.headers.get('content-disposition')).toContain(expected);
    }
  });

  test('a form with two files is refused and leaves neither behind', async () => {
    const member = await newMember('two-files');
    const taskId = await newTask(member);
    const before = written.length;
    const form = new FormData();
    form.append('workspaceId', member.workspaceId);
    form.append('file', new Blob([Buffer.alloc(200 * 1024, 'a')]), 'one.txt');
    form.append('file', new Blob([Buffer.from('two')]), 'two.txt');
    const response = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
      method: 'POST',
      headers: { cookie: member.cookie },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'Send one file', code: 'VALIDATION_ERROR' });
    expect(await objectsLeftBy(written.slice(before))).toEqual([]);
  });

  test('a field too long after the file is a 400 and leaves no file (it used to crash the gateway)', async () => {
    const member = await newMember('long-field');
    const taskId = await newTask(member);
    const before = written.length;
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('notes')]), 'notes.txt');
    form.append('workspaceId', 'x'.repeat(2000));
    const response = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
      method: 'POST',
      headers: { cookie: member.cookie },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'The field workspaceId is too long',
      code: 'VALIDATION_ERROR',
    });
    expect(await objectsLeftBy(written.slice(before))).toEqual([]);
  });

  test('an SVG with a script is only ever served as an inert download', async () => {
    const member = await newMember('svg');
    const taskId = await newTask(member);
    const uploaded = await upload(member, taskId, { name: 'evil.svg', bytes: SVG_WITH_SCRIPT });
    expect(uploaded.status).toBe(200);
    const attachment = uploaded.body as Attachment;
    expect(attachment.type).toBe('image/svg+xml');
    const download = await fetch(`${stack.url}${attachment.url}`, {
      headers: { cookie: member.cookie },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/u);
    expect(download.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('workspaceId must be the task’s, the caller a member; downloads are for members only', async () => {
    const owner = await newMember('owner');
    const outsider = await newMember('outsider');
    const taskId = await newTask(owner);
    const file = { name: 'a.txt', bytes: Buffer.from('secret') };
    const before = written.length;

    const wrongWorkspace = await upload(owner, taskId, file, outsider.workspaceId);
    expect(wrongWorkspace.status).toBe(403);
    expect(wrongWorkspace.body).toEqual({
      error: "workspaceId is not the task's workspace",
      code: 'FORBIDDEN',
    });
    const noWorkspace = await upload(owner, taskId, file, null);
    expect(noWorkspace.status).toBe(400);
    expect(noWorkspace.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await objectsLeftBy(written.slice(before))).toEqual([]);

    const countBefore = written.length;
    const notMember = await upload(outsider, taskId, file, owner.workspaceId);
    expect(notMember.status).toBe(404);
    expect(notMember.body).toEqual({ error: 'Task not found', code: 'NOT_FOUND' });
    // Refused before a byte was stored.
    expect(written.length).toBe(countBefore);

    const attachment = (await upload(owner, taskId, file)).body as Attachment;
    const refused = await fetch(`${stack.url}${attachment.url}`, {
      headers: { cookie: outsider.cookie },
    });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ error: 'File not found', code: 'NOT_FOUND' });
    const unknown = await fetch(
      `${stack.url}/files/task-comments/${owner.workspaceId}/${taskId}/${randomUUID()}.txt`,
      { headers: { cookie: owner.cookie } },
    );
    expect(unknown.status).toBe(404);
    const anonymous = await fetch(`${stack.url}${attachment.url}`);
    expect(anonymous.status).toBe(401);
    const commented = await http(`${stack.url}/tasks/${taskId}/comments`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { body: 'kept', attachments: [attachment] },
    });
    const commentId = (commented.body as { comment: { id: string } }).comment.id;

    const requests: [string, string, unknown][] = [
      ['GET', `/tasks/${taskId}`, undefined],
      ['GET', `/tasks/${taskId}/comments`, undefined],
      ['POST', `/tasks/${taskId}/comments`, { body: 'intruder' }],
      ['POST', '/tasks', { workspaceId: owner.workspaceId, title: 'intruder' }],
      ['PATCH', `/tasks/${taskId}`, { title: 'taken over' }],
      ['PATCH', `/tasks/${taskId}/comments/${commentId}`, { body: 'rewritten' }],
      ['DELETE', `/tasks/${taskId}/comments/${commentId}`, undefined],
      ['DELETE', `/tasks/${taskId}`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const response = await http(`${stack.url}${path}`, {
        method,
        cookie: outsider.cookie,
        body,
      });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.body).toEqual({ error: expect.any(String), code: 'NOT_FOUND' });
    }
  });

  test('an upload that dies midway leaves no file behind', async () => {
    const member = await newMember('abort');
    const taskId = await newTask(member);
    const before = written.length;
    const boundary = 'abort-boundary';
    const url = new URL(`${stack.url}/tasks/${taskId}/comments/attachments`);
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        cookie: member.cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(5 * 1024 * 1024),
      },
    });
    request.on('error', () => undefined);
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${member.workspaceId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    request.write(Buffer.alloc(256 * 1024, 'a'));
    await eventually(async () => expect(written.length).toBe(before + 1));
    request.destroy();
    const name = written[before] ?? '';
    await eventually(async () => expect(await objectsLeftBy([name])).toEqual([]));
  });
  test('a multipart body that ends early anywhere is refused, leaves no file, and the platform stays up', async () => {
    const member = await newMember('early-end');
    const taskId = await newTask(member);
    const boundary = 'early-end-boundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${member.workspaceId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const endings = [
      `${head}hello world\r\n`,
      `${head}hello wor`,
      `${head}hello world\r\n--${boundary}\r\n`,
      `${head}hello world\r\n--${boundary}`,
      `${head}nul \u0000 inside\r\n`,
      `${head}${'a'.repeat(70_000)}`,
    ];
    const before = written.length;
    for (const body of endings) {
      const response = await fetch(`${stack.url}/tasks/${taskId}/comments/attachments`, {
        method: 'POST',
        headers: {
          cookie: member.cookie,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        body,
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await response.json()).toEqual(
        expect.objectContaining({ error: expect.any(String), code: expect.any(String) }),
      );
    }
    expect((await http(`${stack.url}/healthz`)).status).toBe(200);
    const names = written.slice(before);
    await eventually(async () => expect(await objectsLeftBy(names)).toEqual([]));
  });

  test('a task is renamed, and deleted with its comments and their files', async () => {
    const member = await newMember('task-changes');
    const taskId = await newTask(member);
    const renamed = await http(`${stack.url}/tasks/${taskId}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: { title: ' Ship it on Friday ' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ task: { id: taskId, title: 'Ship it on Friday' } });
    const empty = await http(`${stack.url}/tasks/${taskId}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: { title: '' },
    });
    expect(empty.status).toBe(400);

    const before = written.length;
    const kept = (await upload(member, taskId, { name: 'kept.txt', bytes: Buffer.from('1') }))
      .body as Attachment;
    const loose = (await upload(member, taskId, { name: 'loose.txt', bytes: Buffer.from('2') }))
      .body as Attachment;
    await http(`${stack.url}/tasks/${taskId}/comments`, {
      method: 'POST',
      cookie: member.cookie,
      body: { body: 'with a file', attachments: [kept] },
    });
    const files = written.slice(before);
    expect(files).toHaveLength(2);
    expect(await objectsLeftBy(files)).toEqual(files);

    const deleted = await http(`${stack.url}/tasks/${taskId}`, {
      method: 'DELETE',
      cookie: member.cookie,
    });
    expect(deleted.status).toBe(204);
    expect(await objectsLeftBy(files)).toEqual([]);
    for (const path of [`/tasks/${taskId}`, `/tasks/${taskId}/comments`, kept.url, loose.url]) {
      const gone = await http(`${stack.url}${path}`, { cookie: member.cookie });
      expect({ path, status: gone.status }).toEqual({ path, status: 404 });
    }
  });

  test('a comment is edited by its author only, deleted by its author or an owner, with the files only it holds', async () => {
    const owner = await newMember('comment-owner');
    const author = await addWorkspaceMember(stack, owner, 'comment-author');
    const colleague = await addWorkspaceMember(stack, owner, 'comment-colleague');
    const taskId = await newTask(owner);
    const before = written.length;
    const asAuthor = { ...author, workspaceId: owner.workspaceId };
    const own = (await upload(asAuthor, taskId, { name: 'own.txt', bytes: Buffer.from('own') }))
      .body as Attachment;
    const shared = (await upload(asAuthor, taskId, { name: 'both.txt', bytes: Buffer.from('b') }))
      .body as Attachment;
    const [ownFile, sharedFile] = written.slice(before);
    const comment = async (who: { cookie: string }, body: string, attachments: Attachment[]) => {
      const created = await http(`${stack.url}/tasks/${taskId}/comments`, {
        method: 'POST',
        cookie: who.cookie,
        body: { body, attachments },
      });
      expect(created.status).toBe(201);
      return (created.body as { comment: { id: string } }).comment.id;
    };
    const first = await comment(author, 'Draft', [own, shared]);
    const second = await comment(colleague, 'Same file', [shared]);
    const edit = (who: { cookie: string }, commentId: string, body: unknown) =>
      http(`${stack.url}/tasks/${taskId}/comments/${commentId}`, {
        method: 'PATCH',
        cookie: who.cookie,
        body,
      });
    const remove = (who: { cookie: string }, commentId: string) =>
      http(`${stack.url}/tasks/${taskId}/comments/${commentId}`, {
        method: 'DELETE',
        cookie: who.cookie,
      });

    const edited = await edit(author, first, { body: 'Final' });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({
      comment: expect.objectContaining({
        id: first,
        body: 'Final',
        attachments: [own, shared],
        edited_at: expect.any(String),
      }),
    });
    for (const who of [colleague, owner]) {
      const refused = await edit(who, first, { body: 'mine now' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: 'Only the author of a comment can edit it',
        code: 'FORBIDDEN',
      });
    }
    expect((await edit(author, first, { body: 'x', attachments: [] })).status).toBe(400);
    expect((await remove(colleague, first)).status).toBe(403);

    // The author's comment goes with its own file; the file the colleague's comment holds stays.
    expect((await remove(author, first)).status).toBe(204);
    expect(await objectsLeftBy([ownFile ?? '', sharedFile ?? ''])).toEqual([sharedFile]);
    expect((await http(`${stack.url}${own.url}`, { cookie: owner.cookie })).status).toBe(404);
    const stillThere = await fetch(`${stack.url}${shared.url}`, {
      headers: { cookie: owner.cookie },
    });
    expect(await stillThere.text()).toBe('b');
    // An owner deletes anyone's comment; the last holder of the file takes it along.
    expect((await remove(owner, second)).status).toBe(204);
    expect(await objectsLeftBy([sharedFile ?? ''])).toEqual([]);
    expect((await remove(owner, second)).status).toBe(404);
    const listed = await http(`${stack.url}/tasks/${taskId}/comments`, { cookie: owner.cookie });
    expect(listed.body).toEqual({ comments: [] });
  });
});
