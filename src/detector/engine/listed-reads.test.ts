import { describe, expect, it } from 'vitest';
import { keepListings, planReads, type Listings } from './listed-reads.js';
import { listingKey, prefetchKey } from './scripts.js';

describe('reads a directory listing answers', () => {
  it('lists the directory of each file read, once', () => {
    const listings: Listings = new Map();
    expect(planReads(['main.py', 'pkg/__init__.py', 'pkg/a.py', 'Makefile'], listings)).toEqual({
      missing: [],
      known: [],
      read: ['main.py', 'pkg/__init__.py', 'pkg/a.py', 'Makefile'],
      listed: [listingKey(''), prefetchKey('', '.py'), listingKey('pkg'), prefetchKey('pkg', '.py')],
    });
  });

  it('answers missing from a listing, through each directory above, and reads what a listing names', () => {
    const listings: Listings = new Map([
      ['', new Set(['main.py', 'pkg/', 'notes'])],
      ['pkg', new Set(['__init__.py', 'm0.py'])],
    ]);
    const plan = planReads(
      ['json.py', 'json/__init__.py', 'pkg/m0.py', 'pkg/m0/__init__.py', 'notes/x.py', 'pkg/m1.py'],
      listings,
    );
    expect(plan.missing).toEqual(['json.py', 'json/__init__.py', 'pkg/m0/__init__.py', 'notes/x.py', 'pkg/m1.py']);
    expect(plan.read).toEqual(['pkg/m0.py']);
    expect(plan.listed).toEqual([]);
  });

  it('never answers absolute, home or dotted paths from listings', () => {
    const listings: Listings = new Map([['', new Set<string>()]]);
    expect(planReads(['/etc/x.py', '~/x.py', './x.py', 'a/../x.py'], listings).missing).toEqual([]);
  });

  it('answers a file read ahead as known, and keeps what a read-ahead brought back', () => {
    const ahead = new Map([['pkg/m0.py', { text: 'import os\n' }]]);
    expect(planReads(['pkg/m0.py'], new Map(), ahead)).toMatchObject({ known: ['pkg/m0.py'], read: [] });
    const kept = new Map();
    keepListings(
      new Map([
        [prefetchKey('pkg', '.py'), { entries: ['pkg/m1.py'] }],
        ['pkg/m1.py', { text: 'x = 1\n' }],
      ]),
      [prefetchKey('pkg', '.py')],
      new Map(),
      kept,
    );
    expect([...kept]).toEqual([['pkg/m1.py', { text: 'x = 1\n' }]]);
  });

  it('keeps only listings it asked for that came back as entries', () => {
    const listings: Listings = new Map();
    keepListings(
      new Map([
        [listingKey('a'), { entries: ['x.py'] }],
        [listingKey('b'), { error: 'has more than 2000 entries' }],
      ]),
      [listingKey('a'), listingKey('b')],
      listings,
    );
    expect([...listings.keys()]).toEqual(['a']);
  });
});
