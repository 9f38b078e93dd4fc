#!/usr/bin/env bash
# assemble-corpus.sh lays out an evaluation corpus of public Agent Skills
# (internal/search/testdata/public, internal/search/testdata/third) from
# git clones of the sources its sources.tsv lists, each read at its
# recorded commit with `git show`, so a clone's checked-out branch does
# not matter. It copies markdown only: each SKILL.md whose path matches
# the source's include pattern, the other .md files directly in its
# folder, the .md files under its references/ folder and a LICENSE file
# of its own; and the source's licence files, into OUT/<source>/. A file
# that git stores as a symbolic link is not copied (its blob is the
# link's target, not text). Scripts, binaries, assets, templates and
# examples are left out.
#
#   assemble-corpus.sh SOURCES OUT GITDIR...
#
# SOURCES is a sources.tsv (or the folder holding it); OUT the folder to
# lay the corpus out in (created); one GITDIR, bare or with a work tree,
# per source, in the order of SOURCES.
set -euo pipefail
if (($# < 2)); then
	echo "usage: assemble-corpus.sh SOURCES OUT GITDIR... (one clone per source of SOURCES, in its order)" >&2
	exit 2
fi
sources=$1
[[ -d $sources ]] && sources=$sources/sources.tsv
out=$2
shift 2
rows=$(awk -F'\t' 'NR > 1 && $1 != ""' "$sources" | wc -l)
if (($# != rows)); then
	echo "assemble-corpus: $sources lists $rows sources; got $# clones (one per source, in its order)" >&2
	exit 2
fi
mkdir -p "$out"
while IFS=$'\t' read -r short repo commit spdx licences include; do
	[[ $short == short || -z $short ]] && continue
	gitdir=$1
	shift
	g=(git --git-dir="$gitdir")
	[[ -d $gitdir/.git ]] && g=(git --git-dir="$gitdir/.git")
	if ! "${g[@]}" cat-file -e "$commit^{commit}" 2>/dev/null; then
		echo "assemble-corpus: $short: $gitdir has no commit $commit (of $repo)" >&2
		exit 1
	fi
	dest=$out/$short
	mkdir -p "$dest"
	for l in ${licences//,/ }; do
		"${g[@]}" show "$commit:$l" >"$dest/$(basename "$l")"
	done
	# every regular file (not a symbolic link, not a submodule) at the commit
	files=$("${g[@]}" ls-tree -r "$commit" | awk -F'\t' '$1 ~ /^100/ { print $2 }')
	skills=$(grep -E '(^|/)SKILL\.md$' <<<"$files" | grep -E "$include" || true)
	for s in $skills; do
		folder=$(dirname "$s")
		name=$(basename "$folder")
		if [[ -e $dest/$name ]]; then
			echo "assemble-corpus: $short: two skill folders named $name; keeping the first" >&2
			continue
		fi
		while IFS= read -r f; do
			rel=${f#"$folder"/}
			case $rel in
			*/*) [[ $rel == references/* || $rel == LICENSE* ]] || continue ;;
			esac
			# a file of a skill folder nested inside this one belongs to it
			sub=$(dirname "$rel")
			nested=
			while [[ $sub != . ]]; do
				if grep -qxF "$folder/$sub/SKILL.md" <<<"$skills"; then
					nested=1
					break
				fi
				sub=$(dirname "$sub")
			done
			[[ -n $nested ]] && continue
			mkdir -p "$dest/$name/$(dirname "$rel")"
			"${g[@]}" show "$commit:$f" >"$dest/$name/$rel"
		done < <(grep -F "$folder/" <<<"$files" | grep -E '\.md$|/LICENSE(\.txt)?$' | grep -v '^$' | awk -v p="$folder/" 'index($0, p) == 1')
	done
done <"$sources"
