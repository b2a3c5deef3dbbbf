function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fff8ec");
  brush.noStroke();
  const sky = ["#ffafcc", "#ffc8dd", "#fcbf49", "#f77f00"];
  for (let i = 0; i < 4; i++) {
    brush.fill(sky[i], 90);
    brush.fillBleed(0.4);
    brush.fillTexture(0.3, 0.3);
    brush.rect(0, i * 70, 600, 90);
  }
  brush.fill("#f94144", 160);
  brush.circle(300, 300, 60);
  brush.fill("#277da1", 130);
  brush.fillBleed(0.2);
  brush.rect(0, 320, 600, 280);
  brush.set("pastel", "#f9c74f", 3);
  for (let i = 0; i < 6; i++) brush.line(240 + i * 5, 340 + i * 30, 360 - i * 5, 340 + i * 30);
}
