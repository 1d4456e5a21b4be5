package fleet

import (
	"slices"
	"strings"
	"testing"
)

func TestInteractive(t *testing.T) {
	cases := []struct{ cmd, want string }{
		{"ssh build flowdeck --dir /srv/app mcp", "ssh -t build flowdeck --dir /srv/app"},
		{"/usr/bin/ssh -p 2222 -o BatchMode=yes build flowdeck mcp", "/usr/bin/ssh -t -p 2222 -o BatchMode=yes build flowdeck"},
		{"ssh -t build flowdeck mcp", "ssh -t build flowdeck"},
		{"ssh -At build flowdeck mcp", "ssh -At build flowdeck"},
		{"kubectl exec -i pod -- flowdeck --dir /app mcp", "kubectl exec -it pod -- flowdeck --dir /app"},
		{"kubectl -n ns exec -i pod -c app -- flowdeck mcp", "kubectl -n ns exec -it pod -c app -- flowdeck"},
		{"kubectl exec --stdin pod -- flowdeck mcp", "kubectl exec -t --stdin pod -- flowdeck"},
		{"kubectl exec -it pod -- flowdeck mcp", "kubectl exec -it pod -- flowdeck"},
		{"docker exec -i box flowdeck mcp", "docker exec -it box flowdeck"},
		{"docker exec -i -t box flowdeck mcp", "docker exec -i -t box flowdeck"},
		{"docker exec -ti box flowdeck mcp", "docker exec -ti box flowdeck"},
		{"podman exec --interactive box flowdeck mcp", "podman exec -t --interactive box flowdeck"},
		{"my-tunnel flowdeck mcp", "my-tunnel flowdeck"},
		{"flowdeck --dir /x mcp", "flowdeck --dir /x"},
	}
	for _, c := range cases {
		e := Entry{Name: "p", Command: strings.Fields(c.cmd)}
		before := slices.Clone(e.Command)
		if got := strings.Join(Interactive(e), " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.cmd, got, c.want)
		}
		if !slices.Equal(e.Command, before) {
			t.Errorf("%s: the entry's command changed to %q", c.cmd, e.Command)
		}
	}
	if got := Interactive(Entry{Name: "p", Dir: "/srv/app"}); got != nil {
		t.Errorf("a local entry: %q", got)
	}
}
