import { planRowSplit, splitFullName } from './split-name';

describe('splitFullName (decision 63)', () => {
  test.each([
    ['plain', 'Ada Lovelace', 'Ada', 'Lovelace'],
    ['surrounding and repeated whitespace', '  Ada \t  Lovelace \n', 'Ada', 'Lovelace'],
    [
      'middle names stay with the first name',
      'John Ronald Reuel Tolkien',
      'John Ronald Reuel',
      'Tolkien',
    ],
    ['"Last, First"', 'Lovelace, Ada', 'Ada', 'Lovelace'],
    ['"Last, First Middle"', 'King, Martin Luther', 'Martin Luther', 'King'],
    ['"Last, Title First Suffix"', 'Smith, Dr. John Jr.', 'John', 'Smith Jr.'],
    ['a single name', 'Cher', 'Cher', ''],
    ['a single name with spaces around', '   Cher  ', 'Cher', ''],
    ['particle van', 'Ludwig van Beethoven', 'Ludwig', 'van Beethoven'],
    ['two particles', 'Vincent van der Berg', 'Vincent', 'van der Berg'],
    ['particle de', 'Charles de Gaulle', 'Charles', 'de Gaulle'],
    ['particle von', 'Ursula von der Leyen', 'Ursula', 'von der Leyen'],
    ['particle da', 'Leonardo da Vinci', 'Leonardo', 'da Vinci'],
    ['particle di', 'Maria di Angelo', 'Maria', 'di Angelo'],
    ['particle le', 'Jean le Rond', 'Jean', 'le Rond'],
    ['particle bin', 'Mohammed bin Salman', 'Mohammed', 'bin Salman'],
    ['capitalised particle', 'Robert De Niro', 'Robert', 'De Niro'],
    ['a first name that is a particle', 'Van Morrison', 'Van', 'Morrison'],
    ['suffix Jr.', 'Martin Luther King Jr.', 'Martin Luther', 'King Jr.'],
    ['suffix after a comma', 'Martin Luther King, Jr.', 'Martin Luther', 'King Jr.'],
    ['suffix Sr.', 'John Smith Sr.', 'John', 'Smith Sr.'],
    ['suffix II', 'John Smith II', 'John', 'Smith II'],
    ['suffix III', 'Thurston Howell III', 'Thurston', 'Howell III'],
    ['suffix PhD', 'Jane Doe PhD', 'Jane', 'Doe PhD'],
    ['two suffixes', 'John Smith Jr. PhD', 'John', 'Smith Jr. PhD'],
    ['title Dr.', 'Dr. Jane Goodall', 'Jane', 'Goodall'],
    ['title Mrs.', 'Mrs. Jane Smith', 'Jane', 'Smith'],
    ['title without its dot', 'Prof Alan Turing', 'Alan', 'Turing'],
    ['hyphenated', 'Mary-Jane Smith-Jones', 'Mary-Jane', 'Smith-Jones'],
    ['apostrophe', "Conan O'Brien", 'Conan', "O'Brien"],
    ['Cyrillic', 'Иван Петров', 'Иван', 'Петров'],
    ['Greek', 'Γιώργος Παπαδόπουλος', 'Γιώργος', 'Παπαδόπουλος'],
    ['accented Latin', 'José Álvarez', 'José', 'Álvarez'],
    ['Japanese, family name first', '山田 太郎', '太郎', '山田'],
    ['Korean, family name first', '김 민준', '민준', '김'],
    ['Chinese without a space is one name', '毛泽东', '毛泽东', ''],
    ['empty', '', '', ''],
    ['only whitespace', ' \t ', '', ''],
  ])('%s: %j', (_rule, fullName, first, last) => {
    expect(splitFullName(fullName)).toEqual({ first, last });
  });
});

describe('planRowSplit', () => {
  const source = 'source-id';
  const target = 'target-id';

  test.each([
    [
      'a name: first into the source, last into the target',
      { [source]: 'Ada Lovelace' },
      true,
      { [source]: 'Ada', [target]: 'Lovelace' },
    ],
    ['a single name already trimmed writes nothing', { [source]: 'Cher' }, true, {}],
    ['a single name with spaces is trimmed', { [source]: ' Cher ' }, true, { [source]: 'Cher' }],
    ['a target already filled is left alone', { [source]: 'Ada', [target]: 'Lovelace' }, true, {}],
    [
      'a target of only whitespace counts as empty',
      { [source]: 'Ada Lovelace', [target]: '  ' },
      true,
      { [source]: 'Ada', [target]: 'Lovelace' },
    ],
    ['an empty source', { [source]: '' }, false, {}],
    ['a whitespace source', { [source]: '   ' }, false, {}],
    ['a missing source', {}, false, {}],
    ['a null source', { [source]: null }, false, {}],
    ['a number source', { [source]: 42 }, false, {}],
    ['a boolean source', { [source]: true }, false, {}],
    ['a list source', { [source]: ['Ada', 'Lovelace'] }, false, {}],
  ])('%s', (_rule, cells, processed, written) => {
    expect(planRowSplit(cells, source, target)).toEqual({ processed, cells: written });
  });
});
