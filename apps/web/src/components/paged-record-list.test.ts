import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, test } from 'vitest';
import { PagedRecordList } from './paged-record-list';

interface Row {
  id: string;
  name: string;
}
interface Page {
  records: Row[];
}
type Query = Parameters<typeof PagedRecordList<Page, Row>>[0]['query'];

function render(query: Partial<Query>): string {
  return renderToStaticMarkup(
    createElement(PagedRecordList<Page, Row>, {
      query: {
        data: undefined,
        error: null,
        isPending: false,
        isError: false,
        hasNextPage: false,
        isFetchingNextPage: false,
        fetchNextPage: () => Promise.resolve(),
        ...query,
      },
      itemsOf: (page) => page.records,
      noun: 'tables',
      empty: { title: 'No tables yet', hint: 'Name your first table above.' },
      children: (record) => createElement('a', { href: `/t/${record.id}` }, record.name),
    }),
  );
}

const failure = new Error('The server did not answer');
/** A query that has these pages of record names. */
function pages(...names: string[][]): Partial<Query> {
  return {
    data: { pages: names.map((page) => ({ records: page.map((name) => ({ id: name, name })) })) },
  };
}

describe('PagedRecordList', () => {
  test('says what it loads while the first page loads', () => {
    expect(render({ isPending: true })).toContain('Loading the tables…');
  });

  test('a failed first page shows the error and no list', () => {
    const html = render({ error: failure, isError: true });
    expect(html).toContain('role="alert"');
    expect(html).not.toContain('<ul');
  });

  test('an empty workspace gets the empty state', () => {
    const html = render(pages([]));
    expect(html).toContain('No tables yet');
    expect(html).toContain('Name your first table above.');
  });

  test('lists every page in order, with Load more while there is a next page', () => {
    const html = render({ ...pages(['a', 'b'], ['c']), hasNextPage: true });
    expect([...html.matchAll(/<li><a href="\/t\/(\w)">/g)].map((match) => match[1])).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(html).toContain('Load more tables');
    expect(render(pages(['a']))).not.toContain('Load more');
  });

  test('a failed "Load more" keeps the records shown, with the error under them', () => {
    const html = render({ ...pages(['a']), error: failure, isError: true, hasNextPage: true });
    expect(html).toContain('href="/t/a"');
    expect(html.indexOf('role="alert"')).toBeGreaterThan(html.indexOf('</ul>'));
  });
});
