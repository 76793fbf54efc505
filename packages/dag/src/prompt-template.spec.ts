import { parsePromptTemplate } from './prompt-template.js';

describe('parsePromptTemplate', () => {
  it('splits text and placeholders, whitespace inside braces allowed', () => {
    expect(parsePromptTemplate('Of {{ row_count }} rows ({{columns}}):\n{{rows}} in {{params.region}}.')).toEqual({
      tokens: [
        { kind: 'text', text: 'Of ' },
        { kind: 'input', name: 'row_count' },
        { kind: 'text', text: ' rows (' },
        { kind: 'input', name: 'columns' },
        { kind: 'text', text: '):\n' },
        { kind: 'input', name: 'rows' },
        { kind: 'text', text: ' in ' },
        { kind: 'param', name: 'region' },
        { kind: 'text', text: '.' },
      ],
      problems: [],
    });
  });

  it('a prompt without placeholders is one text token', () => {
    expect(parsePromptTemplate('pick one')).toEqual({ tokens: [{ kind: 'text', text: 'pick one' }], problems: [] });
  });

  it('reports unknown names, bare params, and unbalanced braces', () => {
    const { problems } = parsePromptTemplate('{{row}} {{params}} {{params.}} {{}} then {{rows');
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/^an unknown placeholder \{\{row\}\} \(known: /);
    expect(problems[4]).toBe('unbalanced braces near " then {{rows"');
  });
});
