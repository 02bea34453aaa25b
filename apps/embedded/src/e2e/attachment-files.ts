import { crc32 } from 'node:zlib';

/** A zip archive of stored (uncompressed) entries, as an Office file is a zip of XML parts. */
export function zipOf(entries: [string, string][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = Buffer.from(text, 'utf8');
    const fileName = Buffer.from(name, 'utf8');
    const checksum = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function officeXml(mainPart: string, contentType: string, body: string): Buffer {
  return zipOf([
    [
      '[Content_Types].xml',
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/${mainPart}" ContentType="${contentType}"/></Types>`,
    ],
    [mainPart, body],
  ]);
}

/**
 * An OLE compound file: its 512-byte header, then a directory sector naming its streams in
 * UTF-16LE (`WordDocument` for Word 97-2003, `Workbook` for Excel 97-2003).
 */
function compoundFile(streamName: string): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x003e, 24);
  header.writeUInt16LE(0x0003, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 48);
  const directory = Buffer.alloc(512);
  for (const [index, name] of ['Root Entry', streamName].entries()) {
    const entry = index * 128;
    Buffer.from(name, 'utf16le').copy(directory, entry);
    directory.writeUInt16LE((name.length + 1) * 2, entry + 64);
    directory[entry + 66] = index === 0 ? 5 : 2;
  }
  return Buffer.concat([header, directory]);
}

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const GIF_1X1 = Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAACAkQBADs=', 'base64');
const WEBP_1X1 = Buffer.from('UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA', 'base64');
const JPEG_HEAD = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=',
  'base64',
);

/** One real file of each kind endpoint 8 takes: name, bytes, and the type it must be stored as. */
export const ALLOWED_FILES: [string, Buffer, string][] = [
  ['photo.jpg', JPEG_HEAD, 'image/jpeg'],
  ['dot.png', PNG_1X1, 'image/png'],
  ['dot.gif', GIF_1X1, 'image/gif'],
  ['dot.webp', WEBP_1X1, 'image/webp'],
  [
    'logo.svg',
    Buffer.from(
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>',
    ),
    'image/svg+xml',
  ],
  [
    'report.pdf',
    Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'),
    'application/pdf',
  ],
  [
    'letter.docx',
    officeXml(
      'word/document.xml',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>',
    ),
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ],
  [
    'sheet.xlsx',
    officeXml(
      'xl/workbook.xml',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>',
    ),
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ],
  ['old.doc', compoundFile('WordDocument'), 'application/msword'],
  ['old.xls', compoundFile('Workbook'), 'application/vnd.ms-excel'],
  ['notes.txt', Buffer.from('Call Ada on Monday.\nBring the draft.\n'), 'text/plain'],
  [
    'people.csv',
    Buffer.from('name,email\nAda,ada@example.com\n"Hopper, Grace",grace@example.com\n'),
    'text/csv',
  ],
];

/** A Windows executable (its DOS and PE headers) named like a picture. */
export function executableNamedPng(): Buffer {
  const file = Buffer.alloc(1024);
  file.write('MZ', 0, 'latin1');
  file.writeUInt32LE(0x80, 0x3c);
  file.write('PE\0\0', 0x80, 'latin1');
  file.writeUInt16LE(0x014c, 0x84);
  return file;
}

/** An SVG whose script would run if a browser rendered it from our origin. */
export const SVG_WITH_SCRIPT = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/me").then(r=>r.text()).then(alert)</script></svg>',
);
