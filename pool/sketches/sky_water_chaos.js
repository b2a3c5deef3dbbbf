async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(271);

  brush.noStroke();
  const cols = ["#ff3b3b", "#1b1bff", "#00d000", "#ffe600", "#000000", "#ff00c8", "#00e5ff", "#8a4b00"];
  for (let i = 0; i < 45; i++) {
    brush.fill(random(cols), random(150, 255));
    brush.fillBleed(random(0, 0.05));
    brush.fillTexture(random(0, 1), random(0, 1));
    if (random() < 0.5) {
      brush.circle(random(600), random(600), random(10, 90), random(0, 1));
    } else {
      brush.beginShape(0);
      for (let k = 0; k < 5; k++) brush.vertex(random(600), random(600));
      brush.endShape(true);
    }
  }
}
