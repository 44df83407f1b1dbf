// Package clitest runs a tsys program's command line inside a test's own
// process (cli.Exec), as the tests of the examples do. It is apart from
// proctest, which the network packages' tests use, because it imports
// cli and so the whole runtime.
package clitest
