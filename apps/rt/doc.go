// Package rt is a small Whitted-style ray tracer, the application of the
// task runtime in the spirit of the ray tracer demos of the T-system, Satin
// and Cilk.
//
// # What it renders
//
// Spheres, triangles and (optionally square-bounded, optionally
// checkered) planes, lit by point lights with hard shadows, shaded with
// ambient + Lambert diffuse + Phong highlights, plus mirror reflection up to
// Job.MaxDepth bounces, under a sky gradient. Each pixel is the mean of
// Samples x Samples rays through the centres of a regular sub-pixel grid (no
// random numbers). Scenes, all built deterministically from the small
// fixed-size Job (see SceneNames, SceneAbout, LevelRange):
//
//   - "balls": Eric Haines' SPD sphereflake with his viewpoint and three
//     lights. A sphere with 9 spheres of 1/3 its radius around it, each with
//     9 around it, and so on: level L has sum 9^i, i=0..L spheres (level 3:
//     820, level 4: 7381, level 6: 597871), on a square checkered ground.
//     The flake is its own bounding hierarchy: each sphere with its
//     descendants sits in a bounding sphere of twice its radius, so level 5
//     and 6 cost little more than level 3.
//   - "tetra": a Sierpinski tetrahedron of 4^L small tetrahedra (4^(L+1)
//     triangles), after Haines' SPD "tetra", on a checkered floor; bounded
//     by the circumspheres of the recursive subdivision. Matte: far cheaper
//     per pixel, cost from geometry and shadows rather than reflections.
//   - "grid": 2^L x 2^L coloured mirror spheres on a reflecting checkered
//     plane (quadtree of bounding spheres): reflections of reflections.
//
// The cost varies strongly over the image: on DefaultJob a tile in the
// middle of the flake costs dozens of times what a tile of sky does
// (nested reflections, many shadow rays through dense geometry;
// bench/README.md, "Figures behind the code's constants").
//
// # How the task version splits the image
//
// The image of a Job is the Rect [0,Width) x [0,Height) (Job.Bounds). A task
// given a Rect either renders it, with SceneFor(job).Render into a buffer
// of 3*Area() bytes, or splits it with Rect.Split (halving the longer side)
// into two subtasks: a binary tree of tasks whose leaves render rectangles.
// The results are copied into the image with Assemble. Serial is the
// one-core baseline: a plain loop over the rows through the same Render.
// Job travels inside task arguments (only fixed-size numeric fields), and
// SceneFor builds each scene once per process and caches it.
//
// # Determinism
//
// Every pixel is a pure function of its coordinates and the Job: no random
// numbers, no state shared between pixels, samples summed in a fixed order.
// So any partition of the image into rectangles, rendered by any number of
// workers in any order, assembles to exactly the same bytes as Serial. The
// code also avoids everything whose rounding may differ between platforms:
// products are explicitly rounded before being added (no fused
// multiply-add; see vec), and only correctly rounded math functions (Sqrt,
// Floor, Abs, Mod) are used, including to build the scenes, so the bytes are
// the same on amd64, arm64 and the rest, and machines of different kinds can
// share one image.
package rt
