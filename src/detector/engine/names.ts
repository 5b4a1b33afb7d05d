// Knowledge kept as data: lists of names, options and verbs written as words, the way a person reads them. Pure.

/** The words of a table written as text (`names('delete destroy remove')`): white space separates them. */
export const names = (text: string): string[] => text.split(/\s+/).filter(Boolean);
