import { describe, expect, it } from 'vitest';
import { keepListings, planReads, type Listings } from './listed-reads.js';
import { listingKey } from './scripts.js';

describe('reads a directory listing answers', () => {
  it('lists the directory of each file read, once', () => {
    const listings: Listings = new Map();
    expect(planReads(['main.py', 'pkg/__init__.py', 'pkg/a.py'], listings)).toEqual({
      missing: [],
      read: ['main.py', 'pkg/__init__.py', 'pkg/a.py'],
      listed: [listingKey(''), listingKey('pkg')],
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
