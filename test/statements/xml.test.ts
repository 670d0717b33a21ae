/**
 * Safe XML for statement files (src/statements/xml.ts): a DTD or entity declaration is refused before parsing (no
 * billion laughs, no external entity), only the five predefined entities and references to characters XML allows
 * pass, malformed and truncated files say where; leaves stay text, namespaces drop, and the helpers read
 * elements, repeated elements, attributes and text (references decoded, layout line breaks as one space).
 */
import t from 'tap'
import { attributeOf, child, children, parseXml, textAt } from '../../src/statements/xml.ts'
import { FileProblem } from '../../src/statements/types.ts'

function problemOf(text: string): FileProblem {
  try {
    parseXml(text)
  } catch (error) {
    if (error instanceof FileProblem) return error
    throw error
  }
  throw new Error('parsed')
}

t.test('a DOCTYPE or ENTITY anywhere is refused before anything is expanded, naming its line', async (t) => {
  const bomb = '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;">\n]>\n<a>&lol2;</a>'
  const refused = problemOf(bomb)
  t.equal(refused.path, 'line 2')
  t.match(refused.message, /may not declare a DOCTYPE/)
  t.match(problemOf('<a/>\n\n<!entity x "y">').message, /may not declare a ENTITY/, 'any letter case')
  t.match(problemOf('<!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>').message, /DOCTYPE/, 'an external entity never fetched')
})

t.test('entities: the five predefined and allowed character references pass; anything else is refused with its line', async (t) => {
  const parsed = parseXml('<a><b>&lt;&gt;&amp;&quot;&apos; &#233; &#x1D11E;</b></a>')
  t.equal(textAt(parsed, 'a', 'b'), '<>&"\' é 𝄞')
  const undeclared = problemOf('<a>\n<b>&nbsp;</b></a>')
  t.equal(undeclared.path, 'line 2')
  t.match(undeclared.message, /undeclared entity "&nbsp;"/)
  t.match(problemOf('<a>fish & chips</a>').message, /not well-formed XML|undeclared entity/, 'a bare ampersand')
  t.match(problemOf('<a>&#0;</a>').message, /not a character XML allows/, 'NUL')
  t.match(problemOf('<a>&#xD800;</a>').message, /a surrogate/, 'half a UTF-16 pair')
  t.match(problemOf('<a>&#x110000;</a>').message, /not a character XML allows/, 'past Unicode')
  t.match(problemOf('<a>&#xFFFE;</a>').message, /not a character XML allows/)
  t.equal(textAt(parseXml('<a>x&#9;y&#x10FFFF;</a>'), 'a'), 'x\ty\u{10FFFF}', 'tab and the last code point are allowed')
})

t.test('inside CDATA and comments an ampersand is text, and the lines after still count', async (t) => {
  t.doesNotThrow(() => parseXml('<a><!-- a & b --><b><![CDATA[x & y]]></b></a>'))
  const problem = problemOf('<a><!--\n&\n--><b>\n&bad;</b></a>')
  t.equal(problem.path, 'line 4')
})

t.test('malformed and truncated files say where and what', async (t) => {
  const mismatched = problemOf('<a>\n<b></c>\n</a>')
  t.equal(mismatched.path, 'line 2')
  t.match(mismatched.message, /^not well-formed XML/)
  const truncated = problemOf('<Document>\n<BkToCstmrStmt>\n<Stmt>\n')
  t.equal(truncated.path, 'line 4', 'at the end of the file')
  t.match(truncated.message, /ends inside Document\/BkToCstmrStmt\/Stmt: truncated\?/)
})

t.test('leaves stay text (amounts exact), namespace prefixes drop, attributes under their names', async (t) => {
  const parsed = parseXml('<ns:Doc xmlns:ns="urn:x"><ns:Amt Ccy="EUR">0012.50</ns:Amt><ns:Amt Ccy="USD">1e3</ns:Amt><Nb>007</Nb></ns:Doc>')
  const doc = child(parsed, 'Doc')
  const amounts = children(doc, 'Amt')
  t.equal(amounts.length, 2)
  t.same(amounts.map((amount) => textAt(amount)), ['0012.50', '1e3'], 'not numbers')
  t.same(amounts.map((amount) => attributeOf(amount, 'Ccy')), ['EUR', 'USD'])
  t.equal(textAt(doc, 'Nb'), '007')
})

t.test('the helpers: absent is empty or null, one is a list of one, layout line breaks are one space', async (t) => {
  const doc = child(parseXml('<Doc><One>x</One><Text>first line\n      second line</Text><Ref>a &amp;#13; b&#13;c</Ref><E a="&lt;&#65;"/></Doc>'), 'Doc')
  t.same(children(doc, 'Missing'), [])
  t.same(children(doc, 'One'), ['x'])
  t.same(children('leaf', 'One'), [], 'a leaf has no children')
  t.same(children(undefined, 'One'), [])
  t.equal(child(doc, 'Missing'), undefined)
  t.equal(textAt(doc, 'Missing', 'Deeper'), null)
  t.equal(textAt(doc, 'E'), null, 'an element without text')
  t.equal(textAt(doc, 'Text'), 'first line second line', 'the file\'s wrapping reads as one space')
  t.equal(textAt(doc, 'Ref'), 'a &#13; b\rc', 'a reference written as such is content; an escaped one stays text')
  t.equal(attributeOf(child(doc, 'E'), 'a'), '<A')
  t.equal(attributeOf(child(doc, 'E'), 'missing'), null)
  t.equal(attributeOf('leaf', 'a'), null)
})
