package catalog

// keptDigest is what FileDigest read of a file at its stamp.
type keptDigest struct {
	stamp Stamp
	sum   string
	size  int64
}

// FileDigest is the SHA-256 (hex) and byte count of a folder file, the
// view's digest per change key (docs/decisions.md D41, D68): the file is
// read only when its Stamp changed since a surface last asked, through
// ReadBytes, which refuses a file that lies outside the roots once opened
// (it may have become a link since it was listed). A file not yet Settled
// is not kept: it may change again without its stamp showing it. What is
// kept is bounded by the listings that ask (TurnFileDigests, D64).
func (v *View) FileDigest(f FolderFile) (sum string, size int64, err error) {
	if k, ok := v.fileDigests.Get(f.Path); ok && k.stamp.Equal(f.Stamp) {
		return k.sum, k.size, nil
	}
	b, err := v.ReadBytes(f.Path)
	if err != nil {
		return "", 0, err
	}
	sum, size = sha256Hex(b), int64(len(b))
	if Settled(f.Stamp) {
		v.fileDigests.Put(f.Path, keptDigest{stamp: f.Stamp, sum: sum, size: size})
	}
	return sum, size, nil
}

// TurnFileDigests starts a generation of the digests FileDigest keeps. A
// surface that asks for the digest of every file it lists calls it as
// each listing starts (the MCP Skills extension, on skills/list's first
// page), so what two listings in a row did not ask for is forgotten
// (Generations, D64).
func (v *View) TurnFileDigests() { v.fileDigests.Turn() }
