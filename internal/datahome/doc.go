// Package datahome is where rightsize keeps its own data when told nothing
// else: the XDG data directory. It exists so that the one rule is written
// once: config names the default history catalog by it, and history
// creates that catalog's folder, and no other, when it is missing.
package datahome
