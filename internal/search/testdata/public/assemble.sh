#!/usr/bin/env bash
# assemble.sh lays out the public development corpus from git clones of
# the sources in sources.tsv, each at its recorded commit. It copies
# markdown only: each SKILL.md, the other .md files directly in its
# folder and the .md files under its references/ folder, and the licence
# files. Scripts, binaries, assets, templates and examples are left out.
#
#   assemble.sh OUT GITDIR...      (one bare or normal clone per source,
#                                   in the order of sources.tsv)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
mkdir -p "$out"
while IFS=$'\t' read -r short repo commit spdx licences include; do
	[[ $short == short || -z $short ]] && continue
	gitdir=$1
	shift
	g=(git --git-dir="$gitdir")
	[[ -d $gitdir/.git ]] && g=(git --git-dir="$gitdir/.git")
	"${g[@]}" cat-file -e "$commit^{commit}"
	dest=$out/$short
	mkdir -p "$dest"
	for l in ${licences//,/ }; do
		"${g[@]}" show "$commit:$l" >"$dest/$(basename "$l")"
	done
	files=$("${g[@]}" ls-tree -r --name-only "$commit")
	skills=$(grep -E '(^|/)SKILL\.md$' <<<"$files" | grep -E "$include" || true)
	for s in $skills; do
		folder=$(dirname "$s")
		name=$(basename "$folder")
		if [[ -e $dest/$name ]]; then
			echo "assemble: $short: two skill folders named $name; keeping the first" >&2
			continue
		fi
		while IFS= read -r f; do
			rel=${f#"$folder"/}
			case $rel in
			*/* ) [[ $rel == references/* || $rel == LICENSE* ]] || continue ;;
			esac
			# a file of a skill folder nested inside this one belongs to it
			sub=$(dirname "$rel")
			nested=
			while [[ $sub != . ]]; do
				if grep -qxF "$folder/$sub/SKILL.md" <<<"$skills"; then nested=1; break; fi
				sub=$(dirname "$sub")
			done
			[[ -n $nested ]] && continue
			mkdir -p "$dest/$name/$(dirname "$rel")"
			"${g[@]}" show "$commit:$f" >"$dest/$name/$rel"
		done < <(grep -F "$folder/" <<<"$files" | grep -E '\.md$|/LICENSE(\.txt)?$' | grep -v '^$' | awk -v p="$folder/" 'index($0, p) == 1')
	done
done <"$here/sources.tsv"
