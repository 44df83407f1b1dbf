package membership

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// A seed that answers a join in another protocol than gossip is the
// address of something else, and the likeliest mistakes are a node's two
// other addresses: its task address and its --http address. Saying which
// names the fix; retrying would not cure it.

// invalidType finds the message type memberlist read from a seed that
// answered in another protocol: the first byte of the answer, in decimal.
var invalidType = regexp.MustCompile(`invalid msgType \((\d+)\)`)

// httpSeed is what a seed that answers HTTP most likely is.
const httpSeed = "it answers HTTP: is it a node's --http address? give the node's gossip address, the \"gossip HOST:PORT\" its banner prints"

// otherProtocol says what a seed whose answer began with the byte b
// (decimal) most likely is.
func otherProtocol(b string) string {
	switch b {
	case strconv.Itoa('H'): // "HTTP/1.1 400 Bad Request"
		return httpSeed
	case strconv.Itoa('T'): // the magic "TSYS" of a task transport's frame
		return "it speaks tsys's task protocol: it is a node's task address; give the node's gossip address, the \"gossip HOST:PORT\" its banner prints"
	}
	return fmt.Sprintf("it answered in another protocol (its first byte: %s): is it a node's gossip address? a node prints its \"gossip HOST:PORT\" when it starts; its task and --http addresses are others", b)
}

// answersHTTP reports whether an HTTP server answers at seed. It is asked
// only of a seed that answered a keyed join in the clear, which an
// unkeyed gossip node does too (that one reads the request as a message
// of an unknown type, logs it and hangs up: no answer). No proxy: the
// question is what listens at seed itself.
func answersHTTP(seed string) bool {
	c := http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := c.Get("http://" + seed + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}
